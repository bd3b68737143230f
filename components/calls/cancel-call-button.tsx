"use client";

import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { isApiError } from "@/lib/client/api-error";
import { useCancelCall } from "@/lib/client/use-calls";

/**
 * Cancels a running call after a confirmation step (it kills the call's whole process group: TERM,
 * then KILL after the grace period). A call that had already ended (409 not_running) just refreshes.
 */
export function CancelCallButton({ callId }: { callId: string }) {
  const [open, setOpen] = useState(false);
  const cancel = useCancelCall(callId);
  const queryClient = useQueryClient();
  const error = cancel.error;
  return (
    <>
      <Button variant="danger" size="md" onClick={() => setOpen(true)}>
        Cancel call
      </Button>
      <ConfirmDialog
        open={open}
        danger
        title="Cancel this call?"
        confirmLabel="Kill process group"
        dismissLabel="Keep running"
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
        <p>
          The console sends TERM to the call&apos;s whole process group, then KILL after the grace period. The call ends as{" "}
          <strong>cancelled</strong> once the group is gone; whatever the skill had started may be left half done.
        </p>
        {error ? (
          <p role="alert" className="mt-3 text-sm text-red-700">
            {isApiError(error, "not_running") ? "The call had already ended." : error.message}
          </p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}
