"use client";

import { Alert } from "@/components/ui/alert";
import { ConfirmDialog } from "@/components/ui/dialog";
import { useDeletePersona } from "@/lib/client/personas";

/**
 * Asks before deleting the persona `name` (null: closed), then sends `DELETE /api/v1/personas/{name}`.
 * A refusal (409: API tokens still use it) stays in the dialog with the server's message, which names
 * the tokens to revoke. `onClose` after deleting too.
 */
export function DeletePersonaDialog({ name, onClose }: { name: string | null; onClose: () => void }) {
  const remove = useDeletePersona();
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      open={name !== null}
      title={`Delete persona ${name ?? ""}?`}
      confirmLabel="Delete persona"
      danger
      pending={remove.isPending}
      onConfirm={() => {
        if (name !== null) remove.mutate(name, { onSuccess: close });
      }}
      onClose={close}
    >
      <p>Calls that name it will be refused as an unknown persona. Calls already made keep its name in their history.</p>
      {remove.error ? (
        <Alert tone="danger" title="The persona was not deleted" className="mt-3">
          {remove.error.message}
        </Alert>
      ) : null}
    </ConfirmDialog>
  );
}
