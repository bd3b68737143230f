"use client";

import type { ReactNode } from "react";
import { Button } from "./button";
import { ModalFrame } from "./modal-frame";

/**
 * A modal confirmation built on the native `<dialog>` (focus trap, Escape to close, backdrop). Shown
 * while `open`; `onConfirm` runs the action, `onClose` is called on Escape, backdrop or the dismiss
 * button. `pending` keeps it open with a spinner on the confirm button.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  dismissLabel = "Cancel",
  danger = false,
  pending = false,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  dismissLabel?: string;
  danger?: boolean;
  pending?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <ModalFrame open={open} busy={pending} width="md" closeOnBackdrop onClose={onClose}>
      {(titleId) => (
        <>
          <div className="p-5">
            <h2 id={titleId} className="text-base font-semibold text-zinc-900">
              {title}
            </h2>
            {children ? <div className="mt-2 text-sm text-zinc-600">{children}</div> : null}
          </div>
          <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3">
            <Button variant="secondary" onClick={onClose} disabled={pending} autoFocus>
              {dismissLabel}
            </Button>
            <Button variant={danger ? "danger" : "primary"} onClick={onConfirm} pending={pending}>
              {confirmLabel}
            </Button>
          </div>
        </>
      )}
    </ModalFrame>
  );
}
