"use client";

import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ModalFrame } from "@/components/ui/modal-frame";
import { ApiError } from "@/lib/client/api-error";
import { useOngridPersonaImport } from "@/lib/client/personas";
import type { OngridPersonaFile, OngridPersonaImport, OngridPersonaImportResult } from "@/lib/types/ongrid";

/** Largest file the dialog reads (the server's limit per file: 1 MiB). */
const MAX_FILE_BYTES = 1024 * 1024;
/** Most files one import takes (the server's limit). */
const MAX_FILES = 100;

/**
 * Imports ongrid persona `.md` files (DESIGN.md "Integrations": ongrid persona files import on the
 * Personas page; admins): the chosen files are previewed first — each persona as it would be stored,
 * whether it replaces one, and what was not carried over — and stored, all or none, only when the
 * admin confirms with "Import". A file that cannot be mapped is refused with the server's reason,
 * naming the file. `onImported` gets the result; the dialog then closes.
 */
export function ImportOngridPersonasDialog({ open, onClose, onImported }: { open: boolean; onClose: () => void; onImported: (result: OngridPersonaImportResult) => void }) {
  const importing = useOngridPersonaImport();
  const close = () => {
    importing.reset();
    onClose();
  };
  return (
    <ModalFrame open={open} busy={importing.isPending} width="2xl" onClose={close} testId="ongrid-import">
      {(titleId) => <ImportForm titleId={titleId} importing={importing} onClose={close} onImported={onImported} />}
    </ModalFrame>
  );
}

function ImportForm({
  titleId,
  importing,
  onClose,
  onImported,
}: {
  titleId: string;
  importing: ReturnType<typeof useOngridPersonaImport>;
  onClose: () => void;
  onImported: (result: OngridPersonaImportResult) => void;
}) {
  const fileId = useId();
  const [files, setFiles] = useState<OngridPersonaFile[]>([]);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const preview = importing.data && !importing.data.saved ? importing.data : null;

  async function readFiles(list: FileList | null) {
    setFileProblem(null);
    setFiles([]);
    importing.reset();
    const chosen = Array.from(list ?? []);
    if (chosen.length > MAX_FILES) return setFileProblem(`${chosen.length} files chosen; at most ${MAX_FILES} are imported at once.`);
    const tooLarge = chosen.find((file) => file.size > MAX_FILE_BYTES);
    if (tooLarge) return setFileProblem(`${tooLarge.name} is ${tooLarge.size} bytes; at most ${MAX_FILE_BYTES} bytes per file are imported.`);
    const read = await Promise.all(chosen.map(async (file) => ({ name: file.name, text: await file.text() })));
    setFiles(read);
    // The preview comes at once: nothing is stored until Import.
    if (read.length > 0) importing.mutate({ files: read, save: false });
  }

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        importing.mutate(
          { files, save: true },
          {
            onSuccess: (result) => {
              onImported(result);
              onClose();
            },
          },
        );
      }}
    >
      <div className="space-y-3 p-5">
        <h2 id={titleId} className="text-base font-semibold text-zinc-900">
          Import ongrid personas
        </h2>
        <p className="text-sm text-zinc-600">
          ongrid persona files (<code>agents/&lt;name&gt;.md</code>): <code>tools</code> become skills.allow, <code>disallowed_tools</code> skills.deny, and <code>permission_mode</code> stays as it is. Each
          persona is created, or replaces the persona of the same name. Review the preview, then import; a file that cannot be mapped without widening what it may call is refused.
        </p>
        <div>
          <label htmlFor={fileId} className="block text-xs font-medium text-zinc-700">
            Persona files (.md)
          </label>
          <input
            id={fileId}
            type="file"
            multiple
            accept=".md,text/markdown"
            className="mt-1 block text-sm text-zinc-700 file:mr-3 file:rounded-md file:border file:border-zinc-300 file:bg-white file:px-3 file:py-1 file:text-sm"
            onChange={(event) => void readFiles(event.target.files)}
          />
          {fileProblem ? <p className="mt-1 text-xs text-red-700">{fileProblem}</p> : null}
        </div>
        {importing.isPending && !preview ? <p className="text-sm text-zinc-600">Reading {files.length === 1 ? "the file" : `${files.length} files`}…</p> : null}
        {importing.error ? (
          <Alert tone="danger" title="Nothing was imported">
            <ImportProblems error={importing.error} />
          </Alert>
        ) : null}
        {preview ? <Preview personas={preview.personas} /> : null}
      </div>
      <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3">
        <Button variant="secondary" onClick={onClose} disabled={importing.isPending && preview !== null}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" pending={importing.isPending && preview !== null} disabled={preview === null}>
          {preview ? `Import ${preview.personas.length} persona${preview.personas.length === 1 ? "" : "s"}` : "Import"}
        </Button>
      </div>
    </form>
  );
}

function Preview({ personas }: { personas: OngridPersonaImport[] }) {
  return (
    <section aria-label="Preview" className="space-y-2" data-testid="ongrid-preview">
      <h3 className="text-sm font-semibold text-zinc-900">Preview — nothing is stored yet</h3>
      <ul className="space-y-2">
        {personas.map((entry) => (
          <li key={entry.file} className="rounded-md border border-zinc-200 p-3 text-sm" data-testid={`ongrid-preview-${entry.persona.name}`}>
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-mono font-medium text-zinc-900">{entry.persona.name}</span>
              <Badge tone={entry.replaces ? "amber" : "green"}>{entry.replaces ? "replaces the stored persona" : "new"}</Badge>
              <Badge tone="blue">{entry.persona.permission_mode}</Badge>
              <span className="text-xs text-zinc-500">from {entry.file}</span>
            </div>
            {entry.persona.description ? <p className="mt-1 text-zinc-700">{entry.persona.description}</p> : null}
            <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-xs">
              <dt className="text-zinc-500">skills.allow</dt>
              <dd className="font-mono text-zinc-800">{entry.persona.skills.allow.length > 0 ? entry.persona.skills.allow.join(", ") : "nothing"}</dd>
              <dt className="text-zinc-500">skills.deny</dt>
              <dd className="font-mono text-zinc-800">{entry.persona.skills.deny.length > 0 ? entry.persona.skills.deny.join(", ") : "none"}</dd>
            </dl>
            {entry.notes.length > 0 ? (
              <ul className="mt-2 list-disc space-y-0.5 pl-5 text-xs text-zinc-600">
                {entry.notes.map((note) => (
                  <li key={note}>{note}</li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The server's `problems` (one per file that cannot be imported), when it listed them. */
function listedProblems(error: Error): string[] {
  const details = error instanceof ApiError ? (error.details as { problems?: unknown } | undefined) : undefined;
  if (!Array.isArray(details?.problems)) return [];
  return details.problems.flatMap((problem: unknown) => (typeof (problem as { message?: unknown })?.message === "string" ? [(problem as { message: string }).message] : []));
}

/** Why an import was refused: one file's reason, or a list of every file's. */
function ImportProblems({ error }: { error: Error }) {
  const problems = listedProblems(error);
  if (problems.length < 2) return <>{error.message}</>;
  return (
    <>
      {problems.length} files cannot be imported:
      <ul className="mt-1 list-disc space-y-0.5 pl-5">
        {problems.map((problem) => (
          <li key={problem}>{problem}</li>
        ))}
      </ul>
    </>
  );
}

