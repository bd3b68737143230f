"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { isApiError } from "@/lib/client/api-error";
import { formatBytes } from "@/lib/client/format-bytes";
import { useSignApproval } from "@/lib/client/approvals";
import type { Approval } from "@/lib/types/approval";

/**
 * Sign, after a confirmation step (signing lets an irreversible call run). The dialog says whether this
 * is the first or the deciding signature. When the answer shows the approval `approved` — this signature
 * completed it — the call's live timeline opens (issue 4 point 6). The server's refusals (403 requester
 * or role, 409 already signed or not pending) are shown in the dialog. `disabled`/`describedBy` carry
 * the reason computed by approvalActionBlock.
 */
export function SignApprovalButton({ approval, disabled, describedBy }: { approval: Approval; disabled: boolean; describedBy?: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [navigating, startNavigation] = useTransition();
  const sign = useSignApproval();
  const deciding = approval.signatures.length + 1 >= approval.required;

  return (
    <>
      <Button variant="primary" disabled={disabled} aria-describedby={describedBy} onClick={() => setOpen(true)}>
        Sign
      </Button>
      <ConfirmDialog
        open={open}
        danger
        title={`Sign ${approval.call.skill}?`}
        confirmLabel="Sign"
        dismissLabel="Not now"
        pending={sign.isPending || navigating}
        onClose={() => {
          setOpen(false);
          sign.reset();
        }}
        onConfirm={() =>
          // mutateAsync, not mutate's callbacks: the approvals feed may refresh the list and take this card
          // away (the deciding signature approves it) before the answer arrives, and a component's mutate
          // callbacks are dropped once it unmounts — the call page would never open. Refusals show in the dialog.
          sign
            .mutateAsync(approval.id)
            .then((signed) => {
              if (signed.status === "approved") startNavigation(() => router.push(`/calls/${encodeURIComponent(signed.callId)}`));
              else setOpen(false);
            })
            .catch(() => undefined)
        }
      >
        <p>
          {deciding ? (
            <>
              Yours is the deciding signature: <strong>{approval.call.skill}</strong> starts as soon as you sign,{" "}
              {approval.call.omitted?.args !== undefined ? (
                <>
                  with the {formatBytes(approval.call.omitted.args)} of args on{" "}
                  <Link href={`/calls/${encodeURIComponent(approval.callId)}`} className="font-medium text-blue-700 hover:underline">
                    its call page
                  </Link>{" "}
                  (read them there before you sign),
                </>
              ) : (
                "with exactly the args shown,"
              )}{" "}
              and cannot be undone.
            </>
          ) : (
            <>
              Your signature is the first of {approval.required}; <strong>{approval.call.skill}</strong> runs once another approver signs too.
            </>
          )}
        </p>
        <p className="mt-2 font-mono text-xs break-all text-zinc-500">digest {approval.digest}</p>
        {sign.error ? (
          <p role="alert" className="mt-3 text-sm text-red-700">
            {isApiError(sign.error) && (sign.error.status === 403 || sign.error.status === 409)
              ? `Refused (${sign.error.status} ${sign.error.code}): ${sign.error.message}`
              : sign.error.message}
          </p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}
