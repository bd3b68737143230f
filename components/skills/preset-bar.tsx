"use client";

import { useId, useState } from "react";
import { listAjvErrors } from "@/components/schema-form/ajv-errors";
import { FieldMessageList } from "@/components/schema-form/field-message-list";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Select } from "@/components/ui/input";
import { LoadFailed } from "@/components/ui/load-failed";
import { isApiError } from "@/lib/client/api-error";
import { usePresetMutations, usePresets } from "@/lib/client/use-presets";
import type { ArgPreset } from "@/lib/types/preset";
import { PresetNameDialog } from "./preset-name-dialog";

type Args = Record<string, unknown>;
type Dialog = "save" | "rename" | "delete" | null;

/** The message of a failed preset write, with the schema's complaints for `invalid_args`. */
function WriteError({ error }: { error: Error }) {
  if (isApiError(error, "invalid_args")) {
    return (
      <>
        <p>The server refused these args: {error.message}</p>
        {error.ajvErrors.length > 0 ? <FieldMessageList messages={listAjvErrors(error.ajvErrors)} className="mt-1 list-inside list-disc" /> : null}
      </>
    );
  }
  return <p>{error.message}</p>;
}

/**
 * The saved presets of a skill (issue 3), shared by everyone: a picker that loads the chosen preset
 * into the form (`onLoad`), "Save as preset…" (the current `getArgs()`; null means they cannot be read,
 * e.g. broken raw JSON — `unreadableReason` says why), rename and delete of the chosen one. A name
 * already taken (409) offers to overwrite that preset's args (PUT); `invalid_args` shows the server's
 * messages. The chosen preset's id (`selectedId`, "" for none) belongs to the page, so that a form
 * reset can clear the picker; the bar reports each choice, save and delete through `onSelect`.
 */
export function PresetBar({
  skill,
  getArgs,
  unreadableReason,
  selectedId,
  onSelect,
  onLoad,
}: {
  skill: string;
  getArgs: () => Args | null;
  unreadableReason: string;
  selectedId: string;
  onSelect: (id: string) => void;
  onLoad: (preset: ArgPreset) => void;
}) {
  const pickerId = useId();
  const presets = usePresets(skill);
  const { create, update, remove } = usePresetMutations(skill);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [conflictName, setConflictName] = useState<string | null>(null);
  const [pendingArgs, setPendingArgs] = useState<Args | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const list = presets.data ?? [];
  const selected = list.find((preset) => preset.id === selectedId);

  function close() {
    setDialog(null);
    setConflictName(null);
    create.reset();
    update.reset();
    remove.reset();
  }

  function openSave() {
    const args = getArgs();
    if (args === null) {
      setNotice(unreadableReason);
      return;
    }
    setNotice(null);
    setPendingArgs(args);
    setDialog("save");
  }

  function save(name: string) {
    if (!pendingArgs) return;
    setConflictName(null);
    create.mutate(
      { name, args: pendingArgs },
      {
        onSuccess: (preset) => {
          onSelect(preset.id);
          close();
        },
        onError: (error) => {
          if (isApiError(error, "conflict")) setConflictName(name);
        },
      },
    );
  }

  function overwrite() {
    const existing = list.find((preset) => preset.name === conflictName);
    if (!existing || !pendingArgs) return;
    update.mutate(
      { id: existing.id, args: pendingArgs },
      {
        onSuccess: (preset) => {
          onSelect(preset.id);
          close();
        },
      },
    );
  }

  function rename(name: string) {
    if (!selected) return;
    update.mutate({ id: selected.id, name }, { onSuccess: close });
  }

  function confirmDelete() {
    if (!selected) return;
    remove.mutate(selected.id, {
      onSuccess: () => {
        onSelect("");
        close();
      },
    });
  }

  const saveError = conflictName ? null : (create.error ?? update.error);
  const saveMessage = conflictName ? (
    <p>
      A preset named <strong>{conflictName}</strong> already exists. Overwrite its args with the current ones, or choose another name.
    </p>
  ) : saveError ? (
    <WriteError error={saveError} />
  ) : null;
  const renameMessage = update.error ? (
    isApiError(update.error, "conflict") ? <p>Another preset already has that name; choose another one.</p> : <WriteError error={update.error} />
  ) : null;

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        {/* The select sits beside its label, not inside: inside, its option would join the label's name. */}
        <label htmlFor={pickerId} className="text-sm text-zinc-700">
          Preset
        </label>
        <Select
          id={pickerId}
          className="w-56"
          value={selectedId}
          disabled={presets.isPending}
          onChange={(event) => {
            onSelect(event.target.value);
            const preset = list.find((item) => item.id === event.target.value);
            if (preset) onLoad(preset);
          }}
        >
          <option value="">{presets.isPending ? "Loading presets…" : list.length === 0 ? "No saved presets" : "Choose a preset…"}</option>
          {list.map((preset) => (
            <option key={preset.id} value={preset.id}>
              {preset.name}
            </option>
          ))}
        </Select>
        <Button size="sm" onClick={() => setDialog("rename")} disabled={!selected}>
          Rename
        </Button>
        <Button size="sm" onClick={() => setDialog("delete")} disabled={!selected}>
          Delete
        </Button>
        <Button size="sm" onClick={openSave}>
          Save as preset…
        </Button>
      </div>
      {presets.isError ? (
        <LoadFailed title="Could not load the presets" error={presets.error} onRetry={() => void presets.refetch()} />
      ) : null}
      {notice ? (
        <Alert tone="warning" title="Cannot save a preset yet" live>
          {notice}
        </Alert>
      ) : null}

      <PresetNameDialog
        open={dialog === "save"}
        title="Save the current args as a preset"
        submitLabel="Save preset"
        pending={create.isPending || update.isPending}
        message={saveMessage}
        extraAction={
          conflictName ? (
            <Button variant="danger" onClick={overwrite} pending={update.isPending}>
              Overwrite
            </Button>
          ) : null
        }
        onNameChange={() => {
          setConflictName(null);
          create.reset();
        }}
        onSubmit={save}
        onClose={close}
      />
      <PresetNameDialog
        open={dialog === "rename"}
        title={`Rename preset “${selected?.name ?? ""}”`}
        submitLabel="Rename"
        initialName={selected?.name ?? ""}
        pending={update.isPending}
        message={renameMessage}
        onNameChange={() => update.reset()}
        onSubmit={rename}
        onClose={close}
      />
      <ConfirmDialog
        open={dialog === "delete"}
        title={`Delete preset “${selected?.name ?? ""}”?`}
        confirmLabel="Delete preset"
        danger
        pending={remove.isPending}
        onConfirm={confirmDelete}
        onClose={close}
      >
        It is removed for everyone using the console. Calls made with it are kept.
        {remove.error ? <p className="mt-2 text-red-700">{remove.error.message}</p> : null}
      </ConfirmDialog>
    </div>
  );
}
