"use client";

import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { isApiError } from "@/lib/client/api-error";
import { useCancelCall } from "@/lib/client/use-calls";

/** What the dialog says for each cancellable status: a queued call has no process to stop yet. */
const WORDING = {
  running: {
    title: "Cancel this call?",
    confirm: "Kill process group",
    dismiss: "Keep running",
    body: (
      <p>
        The console sends TERM to the call&apos;s whole process group, then KILL after the grace period. The call ends as{" "}
        <strong>cancelled</strong> once the group is gone; whatever the skill had started may be left half done.
      </p>
    ),
  },
  awaiting_confirmation: {
    title: "Don't run this call?",
    confirm: "Don't run it",
    dismiss: "Keep it waiting",
    body: (
      <p>
        Nobody has confirmed it yet: it ends as <strong>cancelled</strong> without running, and the requester sees who declined it. The
        skill never runs, so nothing on the host is touched.
      </p>
    ),
  },
  queued: {
    title: "Cancel this queued call?",
    confirm: "Cancel queued call",
    dismiss: "Keep it queued",
    body: (
      <p>
        It has not started yet: it leaves the queue and ends as <strong>cancelled</strong>. The skill never runs, so nothing on the
        host is touched.
      </p>
    ),
  },
} as const;

/** The statuses a call can be cancelled from on its page. */
export type CancellableStatus = keyof typeof WORDING;

/**
 * Cancels a running, queued or unconfirmed call after a confirmation step. A running call's whole
 * process group is killed (TERM, then KILL after the grace period); a queued one just leaves the
 * queue; one awaiting its confirmation is declined ("Don't run"); the dialog says which. A call that
 * had already ended (409 not_running) just refreshes.
 */
export function CancelCallButton({ callId, status, size = "md" }: { callId: string; status: CancellableStatus; size?: "sm" | "md" }) {
  const [open, setOpen] = useState(false);
  const cancel = useCancelCall(callId);
  const queryClient = useQueryClient();
  const error = cancel.error;
  const wording = WORDING[status];
  return (
    <>
      <Button variant="danger" size={size} onClick={() => setOpen(true)}>
        {status === "awaiting_confirmation" ? "Don't run" : "Cancel call"}
      </Button>
      <ConfirmDialog
        open={open}
        danger
        title={wording.title}
        confirmLabel={wording.confirm}
        dismissLabel={wording.dismiss}
        pending={cancel.isPending}
        onClose={() => {
          setOpen(false);
          cancel.reset();
        }}
        onConfirm={() =>
          cancel.mutate(undefined, {
            onSuccess: () => setOpen(false),
            onError: (failure) => {
              if (isApiError(failure, "not_running")) void queryClient.invalidateQueries();
            },
          })
        }
      >
        {wording.body}
        {error ? (
          <p role="alert" className="mt-3 text-sm text-red-700">
            {isApiError(error, "not_running") ? "The call had already ended." : error.message}
          </p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}
