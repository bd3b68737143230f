"use client";

import Link from "next/link";
import { useState } from "react";
import { ApprovalClock } from "@/components/approvals/approval-clock";
import { ApprovalSignatures } from "@/components/approvals/approval-signatures";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useCallApproval, useConfirmCall } from "@/lib/client/approvals";
import { useIdentity } from "@/lib/client/identity";
import { roleAtLeast } from "@/lib/types/identity";
import type { Call } from "@/lib/types/call";
import { CancelCallButton } from "./cancel-call-button";

/**
 * What a call awaiting approval waits for: "Waiting for two approvers" with the signatures so far, the
 * age and time left (ticking), and a link to the Approvals page where approvers sign. The approval is
 * re-read every 2 s while the call waits.
 */
function AwaitingApproval({ call }: { call: Call }) {
  const approval = useCallApproval(call.id, true);
  return (
    <Alert
      tone="info"
      title="Waiting for two approvers"
      data-testid="call-waiting"
      data-waiting="approval"
      actions={
        <Link href="/approvals" className="inline-flex h-7 items-center rounded-md border border-blue-300 bg-white px-2.5 text-xs font-medium text-blue-800 hover:bg-blue-50">
          Open Approvals
        </Link>
      }
    >
      <p>
        This dangerous call runs once two approvers other than {call.requestedBy} sign it on the Approvals page. The page follows it and shows its
        stderr as soon as it starts.
      </p>
      <div className="mt-2">
        {approval.isPending ? (
          <SkeletonRows rows={2} />
        ) : approval.isError ? (
          <p className="text-red-700">Could not load the approval: {approval.error.message}</p>
        ) : approval.data ? (
          <div className="space-y-1">
            <ApprovalSignatures approval={approval.data} />
            <ApprovalClock approval={approval.data} />
          </div>
        ) : (
          <p>No approval was found for this call.</p>
        )}
      </div>
    </Alert>
  );
}

/**
 * What a call awaiting confirmation waits for, with "Confirm and run" for an operator (or above) signed
 * in as a person — after a confirmation step showing the persona; the args are on the page. The server
 * decides: its refusal (403, 409) is shown in the dialog.
 */
function AwaitingConfirmation({ call }: { call: Call }) {
  const identity = useIdentity();
  const confirm = useConfirmCall();
  const [open, setOpen] = useState(false);
  const me = identity.data;
  const block = !me
    ? null
    : me.via !== "session"
      ? "a person must confirm; API tokens cannot"
      : !roleAtLeast(me.role, "operator")
        ? `only operators and above may confirm; you are a ${me.role}`
        : null;

  return (
    <>
      <Alert
        tone="warning"
        title="Waiting for a person to confirm"
        data-testid="call-waiting"
        data-waiting="confirmation"
        actions={
          <span className="flex flex-wrap gap-2">
            <CancelCallButton callId={call.id} status="awaiting_confirmation" size="sm" />
            <Button size="sm" variant="primary" disabled={!me || block !== null} title={block ?? undefined} onClick={() => setOpen(true)}>
              Confirm and run
            </Button>
          </span>
        }
      >
        <p>
          This mutating call runs once an operator confirms it, here or on the Approvals page. Check the args below first; Don&apos;t run ends it without running.
          {block ? <> You can&apos;t confirm it: {block}.</> : null}
        </p>
      </Alert>
      <ConfirmDialog
        open={open}
        title={`Run ${call.skill} now?`}
        confirmLabel="Confirm and run"
        dismissLabel="Not now"
        pending={confirm.isPending}
        onClose={() => {
          setOpen(false);
          confirm.reset();
        }}
        onConfirm={() => confirm.mutate(call.id, { onSuccess: () => setOpen(false) })}
      >
        <p>
          It runs under persona <strong>{call.persona ?? "default"}</strong> with the args shown on the page, requested by {call.requestedBy}.
        </p>
        {confirm.error ? (
          <p role="alert" className="mt-3 text-sm text-red-700">
            {confirm.error.message}
          </p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}

/** The call page's panel for a call that waits for people: confirmation or two signatures. */
export function CallWaitingPanel({ call }: { call: Call }) {
  if (call.status === "awaiting_approval") return <AwaitingApproval call={call} />;
  if (call.status === "awaiting_confirmation") return <AwaitingConfirmation call={call} />;
  return null;
}
