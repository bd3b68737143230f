"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/input";
import { isApiError } from "@/lib/client/api-error";
import { useDenyApproval } from "@/lib/client/approvals";
import type { Approval } from "@/lib/types/approval";

/**
 * Deny, through a dialog that asks for the reason (required; it is stored, audited and shown with the
 * call). Denying is terminal: the call ends `denied`. Server refusals (403/409) are shown in the dialog.
 */
export function DenyApprovalButton({ approval, disabled, describedBy }: { approval: Approval; disabled: boolean; describedBy?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const reasonId = useId();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const deny = useDenyApproval();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  function close() {
    setOpen(false);
    setReason("");
    deny.reset();
  }

  return (
    <>
      <Button variant="danger" disabled={disabled} aria-describedby={describedBy} onClick={() => setOpen(true)}>
        Deny
      </Button>
      <dialog
        ref={ref}
        aria-labelledby={titleId}
        onClose={close}
        onCancel={(event) => {
          if (deny.isPending) event.preventDefault();
        }}
        className="m-auto w-full max-w-md rounded-lg border border-zinc-200 bg-white p-0 shadow-xl backdrop:bg-zinc-950/40"
      >
        {open ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              if (reason.trim() !== "") deny.mutate({ id: approval.id, reason: reason.trim() }, { onSuccess: close });
            }}
          >
            <div className="space-y-2 p-5">
              <h2 id={titleId} className="text-base font-semibold text-zinc-900">
                Deny {approval.call.skill}?
              </h2>
              <p className="text-sm text-zinc-600">Denying is final: the call ends as denied and never runs. Say why, for the requester and the audit trail.</p>
              <label htmlFor={reasonId} className="block text-sm font-medium text-zinc-700">
                Reason
              </label>
              <Textarea id={reasonId} rows={3} value={reason} maxLength={1000} required autoFocus aria-describedby={`${reasonId}-hint`} onChange={(event) => setReason(event.target.value)} />
              <p id={`${reasonId}-hint`} className="text-xs text-zinc-500">
                Required: Deny stays disabled until you give a reason.
              </p>
              {deny.error ? (
                <p role="alert" className="text-sm text-red-700">
                  {isApiError(deny.error) && (deny.error.status === 403 || deny.error.status === 409)
                    ? `Refused (${deny.error.status} ${deny.error.code}): ${deny.error.message}`
                    : deny.error.message}
                </p>
              ) : null}
            </div>
            <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3">
              <Button variant="secondary" onClick={close} disabled={deny.isPending}>
                Cancel
              </Button>
              <Button type="submit" variant="danger" pending={deny.isPending} disabled={reason.trim() === ""}>
                Deny
              </Button>
            </div>
          </form>
        ) : null}
      </dialog>
    </>
  );
}
