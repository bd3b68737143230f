"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";

const WIDTHS = { md: "max-w-md", lg: "max-w-lg", xl: "max-w-xl", "2xl": "max-w-2xl" } as const;

/**
 * The console's one modal, on the native `<dialog>` (focus trap, Escape, backdrop). Its content is
 * mounted only while `open`, in the render before showModal(), so each opening starts from fresh state
 * (a field reset after opening could empty what the user had just typed). `onClose` is called when the
 * dialog closes (Escape, or the content closing it). `busy` keeps Escape and the backdrop from closing
 * it while a request is in flight. `onEscape`, when given, replaces closing on Escape (e.g. "Escape
 * means don't run"); `closeOnBackdrop` closes it on a click outside. `children` receives the id to put
 * on the title for aria-labelledby (one id per dialog: a page may hold several).
 */
export function ModalFrame({
  open,
  busy = false,
  width = "lg",
  closeOnBackdrop = false,
  onClose,
  onEscape,
  testId,
  children,
}: {
  open: boolean;
  busy?: boolean;
  width?: keyof typeof WIDTHS;
  closeOnBackdrop?: boolean;
  onClose?: () => void;
  onEscape?: () => void;
  testId?: string;
  children: (titleId: string) => ReactNode;
}) {
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
        if (busy || onEscape) event.preventDefault();
        if (!busy) onEscape?.();
      }}
      onClick={(event) => {
        if (closeOnBackdrop && !busy && event.target === ref.current) onClose?.();
      }}
      className={`m-auto w-full ${WIDTHS[width]} rounded-lg border border-zinc-200 bg-white p-0 shadow-xl backdrop:bg-zinc-950/40`}
      data-testid={testId}
    >
      {open ? children(titleId) : null}
    </dialog>
  );
}
