"use client";

import { useMemo, useRef, useState } from "react";
import { AdminOnly } from "@/components/layout/admin-only";
import { PageHeader } from "@/components/layout/page-header";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useSecrets } from "@/lib/client/use-secrets";
import { useSkills } from "@/lib/client/use-skills";
import type { SecretInfo } from "@/lib/types/secret";
import { CreateSecretForm, type SecretPreset } from "./create-secret-form";
import { DeleteSecretDialog } from "./delete-secret-dialog";
import { EditSecretDialog, type SecretEdit } from "./edit-secret-dialog";
import { missingSecrets } from "./missing-secrets";
import { MissingSecretsCard } from "./missing-secrets-card";
import { SecretsTable } from "./secrets-table";

/** Placeholder of the secrets table while it loads. */
export function SecretsSkeleton() {
  return (
    <Card>
      <SkeletonRows rows={5} className="p-4" />
    </Card>
  );
}

/**
 * The Secrets page body (DESIGN.md "Skill secrets"; admins only, others read "Admins only"): the form
 * that stores a secret for chosen skills, the secrets skills need and lack (with Set it / Give it), and
 * every secret — name, skills, fingerprint, whether this console's key opens it, who changed it when —
 * with Change and Delete, each saying first which skills it affects and whose pending approvals it
 * voids. No value ever comes back from the server, and none is kept in the page once sent.
 */
export function SecretsPage() {
  return (
    <AdminOnly
      header={
        <PageHeader
          title="Secrets"
          description="Credentials given to chosen skills as environment variables. A value is sealed at rest and never shown again: only its fingerprint is."
        />
      }
      skeleton={<SecretsSkeleton />}
      refusal="Only an admin sees and sets the secrets skills are given."
    >
      <SecretsPageBody />
    </AdminOnly>
  );
}

/** What an admin sees of the Secrets page below its header. */
function SecretsPageBody() {
  const secrets = useSecrets();
  const skills = useSkills();
  const [preset, setPreset] = useState<{ preset: SecretPreset; key: number } | null>(null);
  const [edit, setEdit] = useState<SecretEdit | null>(null);
  const [deleting, setDeleting] = useState<SecretInfo | null>(null);
  const formSection = useRef<HTMLDivElement>(null);
  const missing = useMemo(() => missingSecrets(skills.data ?? []), [skills.data]);
  const registered = useMemo(() => (skills.data ? new Set(skills.data.map((skill) => skill.name)) : null), [skills.data]);
  const existing = useMemo(() => new Map((secrets.data ?? []).map((secret) => [secret.name, secret])), [secrets.data]);

  function startSecret(next: SecretPreset) {
    setPreset((previous) => ({ preset: next, key: (previous?.key ?? 0) + 1 }));
    formSection.current?.scrollIntoView({ behavior: "smooth", block: "start" });
  }

  return (
    <>
      <div className="space-y-4">
        <div ref={formSection} className="scroll-mt-4">
          <CreateSecretForm key={preset?.key ?? 0} preset={preset?.preset ?? null} neededNames={missing.map((needed) => needed.name).filter((name) => !existing.has(name))} />
        </div>
        {secrets.isSuccess && missing.length > 0 ? (
          <MissingSecretsCard missing={missing} existing={existing} onSet={startSecret} onGive={(secret, addSkills) => setEdit({ secret, addSkills })} />
        ) : null}
        {secrets.isPending ? (
          <SecretsSkeleton />
        ) : secrets.isError ? (
          <LoadFailed title="Could not load the secrets" error={secrets.error} onRetry={() => void secrets.refetch()} />
        ) : secrets.data.length === 0 ? (
          <EmptyState title="No secrets yet">
            A secret gives chosen skills a credential — an API key, a token — as an environment variable, without putting it in the console&apos;s environment or in a
            SKILL.md. Its value is sealed at rest, reaches only the skills it is given to, and is masked (•••) in every timeline and result. A native skill that names
            one under <code className="font-mono">requires.env</code> is unavailable until it is set here.
          </EmptyState>
        ) : (
          <Card className="overflow-hidden">
            <SecretsTable secrets={secrets.data} registered={registered} onEdit={(secret) => setEdit({ secret, addSkills: [] })} onDelete={setDeleting} />
          </Card>
        )}
      </div>
      <EditSecretDialog edit={edit} onClose={() => setEdit(null)} />
      <DeleteSecretDialog secret={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
