"use client";

import { useState } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useIdentity } from "@/lib/client/identity";
import { PERSONAS_EXPORT_PATH, type PersonaImportResult } from "@/lib/client/personas";
import { usePersonas } from "@/lib/client/use-personas";
import { roleAtLeast } from "@/lib/types/identity";
import type { Persona } from "@/lib/types/persona";
import { DeletePersonaDialog } from "./delete-persona-dialog";
import { ImportOngridPersonasDialog } from "./import-ongrid-personas-dialog";
import { ImportPersonasDialog } from "./import-personas-dialog";
import { PersonaFormDialog } from "./persona-form-dialog";
import { PersonasTable } from "./personas-table";

/** Placeholder of the personas page while the list loads. */
export function PersonasSkeleton() {
  return (
    <div role="status" aria-label="Loading the personas">
      <PageHeader title="Personas" />
      <div className="rounded-lg border border-zinc-200 bg-white p-4">
        <SkeletonRows rows={4} />
      </div>
    </div>
  );
}

/** Why the signed-in person cannot change personas, or null for an admin (the server decides anyway). */
function useEditReason(): string | null {
  const identity = useIdentity();
  if (!identity.data) return "Checking who you are…";
  if (roleAtLeast(identity.data.role, "admin")) return null;
  return `Only admins change personas; ${identity.data.email} is ${identity.data.role === "viewer" ? "a" : "an"} ${identity.data.role}.`;
}

function importSummary(result: Pick<PersonaImportResult, "created" | "replaced"> & { personas: readonly unknown[] }): string {
  const parts = [];
  if (result.created.length > 0) parts.push(`created ${result.created.join(", ")}`);
  if (result.replaced.length > 0) parts.push(`replaced ${result.replaced.join(", ")}`);
  return `Imported ${result.personas.length} persona${result.personas.length === 1 ? "" : "s"}: ${parts.join("; ")}.`;
}

/**
 * `/personas` (issue 4 point 2): every persona with its permission mode and skill lists; admins create,
 * edit, delete (with confirmation), import YAML and ongrid persona files (with a preview); everyone may export the YAML. For others the
 * actions are disabled with the reason.
 */
export function PersonasPage() {
  const personas = usePersonas();
  const editReason = useEditReason();
  const [editing, setEditing] = useState<{ persona: Persona | null } | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [importingOngrid, setImportingOngrid] = useState(false);
  const [imported, setImported] = useState<string | null>(null);

  const header = (
    <PageHeader
      title="Personas"
      description="Agent identities: which skills each may call (skills.allow / skills.deny; deny wins), which native skill categories it loads, and its permission mode."
      actions={
        <>
          <a
            href={PERSONAS_EXPORT_PATH}
            download="personas.yaml"
            className="inline-flex h-8 items-center rounded-md border border-zinc-300 bg-white px-3 text-sm font-medium text-zinc-800 shadow-xs hover:border-zinc-400 hover:bg-zinc-50"
          >
            Export YAML
          </a>
          <Button disabled={editReason !== null} title={editReason ?? undefined} onClick={() => setImporting(true)}>
            Import YAML
          </Button>
          <Button disabled={editReason !== null} title={editReason ?? undefined} onClick={() => setImportingOngrid(true)}>
            Import ongrid .md
          </Button>
          <Button variant="primary" disabled={editReason !== null} title={editReason ?? undefined} onClick={() => setEditing({ persona: null })}>
            New persona
          </Button>
        </>
      }
    />
  );

  return (
    <div>
      {header}
      <div className="space-y-4">
        {editReason !== null && editReason.startsWith("Only") ? (
          <Alert tone="info" title="Read only">
            {editReason}
          </Alert>
        ) : null}
        {imported ? (
          <Alert tone="info" live title={imported} actions={<Button size="sm" variant="ghost" onClick={() => setImported(null)}>Dismiss</Button>} />
        ) : null}
        {personas.isPending ? (
          <Card className="p-4">
            <SkeletonRows rows={4} />
          </Card>
        ) : personas.isError ? (
          <LoadFailed title="Could not load the personas" error={personas.error} onRetry={() => void personas.refetch()} />
        ) : personas.data.length === 0 ? (
          <EmptyState title="No personas">The console creates the default persona on start; create or import others.</EmptyState>
        ) : (
          <Card>
            <PersonasTable personas={personas.data} editReason={editReason} onEdit={(persona) => setEditing({ persona })} onDelete={setDeleting} />
          </Card>
        )}
      </div>
      <PersonaFormDialog open={editing !== null} persona={editing?.persona ?? null} onClose={() => setEditing(null)} />
      <DeletePersonaDialog name={deleting} onClose={() => setDeleting(null)} />
      <ImportPersonasDialog open={importing} onClose={() => setImporting(false)} onImported={(result) => setImported(importSummary(result))} />
      <ImportOngridPersonasDialog open={importingOngrid} onClose={() => setImportingOngrid(false)} onImported={(result) => setImported(importSummary(result))} />
    </div>
  );
}
