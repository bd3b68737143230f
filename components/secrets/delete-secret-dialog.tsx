"use client";

import { Alert } from "@/components/ui/alert";
import { ConfirmDialog } from "@/components/ui/dialog";
import { useDeleteSecret } from "@/lib/client/use-secrets";
import { useSkills } from "@/lib/client/use-skills";
import type { SecretInfo } from "@/lib/types/secret";
import { secretChangeImpact } from "./secret-impact";
import { SecretImpactNote } from "./secret-impact-note";

/**
 * Asks before deleting `secret` (null: closed), naming it, the skills that stop receiving it, those that
 * need it and become unavailable, and the skills whose pending approvals are voided; then sends `DELETE
 * /api/v1/secrets/{name}`. A refusal stays in the dialog. `onClose` after deleting too.
 */
export function DeleteSecretDialog({ secret, onClose }: { secret: SecretInfo | null; onClose: () => void }) {
  const remove = useDeleteSecret();
  const skills = useSkills();
  const close = () => {
    remove.reset();
    onClose();
  };
  const impact = secret ? secretChangeImpact(secret.name, secret.skills, [], true, skills.data ?? []) : null;
  return (
    <ConfirmDialog
      open={secret !== null}
      title={`Delete secret ${secret?.name ?? ""}?`}
      confirmLabel="Delete secret"
      danger
      pending={remove.isPending}
      onConfirm={() => {
        if (secret) remove.mutate(secret.name, { onSuccess: close });
      }}
      onClose={close}
    >
      <p>Its value is not kept anywhere else: to give it back, set it again.</p>
      {secret && impact ? (
        secret.skills.length === 0 ? (
          <p className="mt-2">It is given to no skill.</p>
        ) : (
          <SecretImpactNote impact={impact} name={secret.name} className="mt-2" />
        )
      ) : null}
      {remove.error ? (
        <Alert tone="danger" title="The secret was not deleted" className="mt-3">
          {remove.error.message}
        </Alert>
      ) : null}
    </ConfirmDialog>
  );
}
