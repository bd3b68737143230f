"use client";

import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/input";
import { useImportPersonas, type PersonaImportResult } from "@/lib/client/personas";
import { ModalFrame } from "@/components/ui/modal-frame";

const EXAMPLE = `- name: ops-oncall
  description: On-call operator agent
  permission_mode: dual-sign-required
  skills:
    allow: ["category:ops", "disk_*"]
    deny: ["kill_process"]
  categories: [ops, system]
`;

/** Largest file the dialog reads, matching the server's limit (256 KiB). */
const MAX_FILE_BYTES = 256 * 1024;

/**
 * Imports personas from YAML (issue 4 point 2): pasted into the text area or read from a chosen file,
 * sent to `POST /api/v1/personas/import`. All or nothing: a refusal (naming the persona and field) is
 * shown and nothing changed. `onImported` gets the result; the dialog then closes.
 */
export function ImportPersonasDialog({ open, onClose, onImported }: { open: boolean; onClose: () => void; onImported: (result: PersonaImportResult) => void }) {
  const importing = useImportPersonas();
  const close = () => {
    importing.reset();
    onClose();
  };
  return (
    <ModalFrame open={open} busy={importing.isPending} width="2xl" onClose={close}>
      {(titleId) => <ImportForm titleId={titleId} importing={importing} onClose={close} onImported={onImported} />}
    </ModalFrame>
  );
}

function ImportForm({ titleId, importing, onClose, onImported }: { titleId: string; importing: ReturnType<typeof useImportPersonas>; onClose: () => void; onImported: (result: PersonaImportResult) => void }) {
  const ids = { text: useId(), file: useId() };
  const [text, setText] = useState("");
  const [fileProblem, setFileProblem] = useState<string | null>(null);

  async function readFile(file: File | undefined) {
    setFileProblem(null);
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      setFileProblem(`${file.name} is ${file.size} bytes; at most ${MAX_FILE_BYTES} bytes are imported.`);
      return;
    }
    setText(await file.text());
  }

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        importing.mutate(text, {
          onSuccess: (result) => {
            onImported(result);
            onClose();
          },
        });
      }}
    >
      <div className="space-y-3 p-5">
        <h2 id={titleId} className="text-base font-semibold text-zinc-900">
          Import personas from YAML
        </h2>
        <p className="text-sm text-zinc-600">
          A list of personas, or one. Each is created, or replaces the persona of the same name; personas not listed stay as they are. If any persona is refused, nothing is imported.
        </p>
        <div>
          <label htmlFor={ids.file} className="block text-xs font-medium text-zinc-700">
            Read a file
          </label>
          <input
            id={ids.file}
            type="file"
            accept=".yaml,.yml,text/yaml,application/yaml"
            className="mt-1 block text-sm text-zinc-700 file:mr-3 file:rounded-md file:border file:border-zinc-300 file:bg-white file:px-3 file:py-1 file:text-sm"
            onChange={(event) => void readFile(event.target.files?.[0])}
          />
          {fileProblem ? <p className="mt-1 text-xs text-red-700">{fileProblem}</p> : null}
        </div>
        <div>
          <label htmlFor={ids.text} className="block text-xs font-medium text-zinc-700">
            YAML
          </label>
          <Textarea id={ids.text} mono rows={14} className="mt-1" placeholder={EXAMPLE} value={text} spellCheck={false} onChange={(event) => setText(event.target.value)} data-testid="personas-yaml" />
        </div>
        {importing.error ? (
          <Alert tone="danger" title="Nothing was imported">
            {importing.error.message}
          </Alert>
        ) : null}
      </div>
      <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3">
        <Button variant="secondary" onClick={onClose} disabled={importing.isPending}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" pending={importing.isPending} disabled={text.trim() === ""}>
          Import
        </Button>
      </div>
    </form>
  );
}
