"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";

/**
 * A modal on the native `<dialog>` (focus trap, Escape, backdrop) for the persona forms. Its content
 * is mounted only while `open`, so each opening starts from fresh state. `onClose` is called on Escape
 * or by the content; `busy` keeps Escape from closing it while a request is in flight. `children`
 * receives the id to put on the title for aria-labelledby.
 */
export function ModalFrame({ open, busy = false, wide = false, onClose, children }: { open: boolean; busy?: boolean; wide?: boolean; onClose: () => void; children: (titleId: string) => ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
      className={`m-auto w-full ${wide ? "max-w-2xl" : "max-w-lg"} rounded-lg border border-zinc-200 bg-white p-0 shadow-xl backdrop:bg-zinc-950/40`}
    >
      {open ? children(titleId) : null}
    </dialog>
  );
}
