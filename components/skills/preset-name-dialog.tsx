"use client";

import { useId, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { ModalFrame } from "@/components/ui/modal-frame";

/**
 * A small modal asking for a preset name, on the native `<dialog>` like ConfirmDialog. Shown while
 * `open`, the field starting at `initialName`; submitting calls `onSubmit(name)` with the trimmed,
 * non-empty name. `message` (an error or a conflict question) shows under the field, with its own
 * `extraAction` button (e.g. "Overwrite"). `pending` keeps it open with a spinner.
 */
export function PresetNameDialog({
  open,
  title,
  submitLabel,
  initialName = "",
  pending = false,
  message,
  extraAction,
  onSubmit,
  onNameChange,
  onClose,
}: {
  open: boolean;
  title: string;
  submitLabel: string;
  initialName?: string;
  pending?: boolean;
  message?: ReactNode;
  extraAction?: ReactNode;
  onSubmit: (name: string) => void;
  onNameChange?: () => void;
  onClose: () => void;
}) {
  // The form (and its name state) lives for one opening (ModalFrame mounts it per opening).
  return (
    <ModalFrame open={open} busy={pending} width="md" onClose={onClose}>
      {(titleId) => (
        <PresetNameForm
          titleId={titleId}
          title={title}
          submitLabel={submitLabel}
          initialName={initialName}
          pending={pending}
          message={message}
          extraAction={extraAction}
          onSubmit={onSubmit}
          onNameChange={onNameChange}
          onClose={onClose}
        />
      )}
    </ModalFrame>
  );
}

/** The dialog's content; its state lives exactly as long as one opening of the dialog. */
function PresetNameForm({
  titleId,
  title,
  submitLabel,
  initialName,
  pending,
  message,
  extraAction,
  onSubmit,
  onNameChange,
  onClose,
}: {
  titleId: string;
  title: string;
  submitLabel: string;
  initialName: string;
  pending: boolean;
  message?: ReactNode;
  extraAction?: ReactNode;
  onSubmit: (name: string) => void;
  onNameChange?: () => void;
  onClose: () => void;
}) {
  const inputId = useId();
  const [name, setName] = useState(initialName);

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (name.trim() !== "") onSubmit(name.trim());
      }}
    >
      <div className="space-y-2 p-5">
        <h2 id={titleId} className="text-base font-semibold text-zinc-900">
          {title}
        </h2>
        <label htmlFor={inputId} className="block text-sm text-zinc-700">
          Preset name
        </label>
        <Input
          id={inputId}
          className="w-full"
          value={name}
          maxLength={100}
          autoFocus
          required
          onChange={(event) => {
            setName(event.target.value);
            onNameChange?.();
          }}
        />
        {message ? (
          <div role="alert" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
            {message}
          </div>
        ) : null}
      </div>
      <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3">
        <Button variant="secondary" onClick={onClose} disabled={pending}>
          Cancel
        </Button>
        {extraAction}
        <Button type="submit" variant="primary" pending={pending} disabled={name.trim() === ""}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
