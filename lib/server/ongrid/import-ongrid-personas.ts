/*
 * ongrid drop-in (DESIGN.md "Integrations"): ongrid persona `.md` files imported as personas. The
 * format's source is named in ongrid-persona.ts (github.com/ongridio/ongrid at commit
 * 2e688933ac33ba95b46c1ebca348c4d282234446).
 */
import type { Identity } from "@/lib/types/identity";
import type { OngridPersonaImport, OngridPersonaImportResult } from "@/lib/types/ongrid";
import type { OngridPersonaImportBody } from "@/lib/validation/ongrid-requests";
import { AppError } from "../errors";
import { storeImportedPersonas } from "../personas/import-personas";
import { findPersona } from "../personas/persona-store";
import { mapOngridPersona } from "./ongrid-persona";

/** One file that cannot be imported: its name, the frontmatter field at fault when one is, and why. */
interface FileProblem {
  file: string;
  field?: string;
  message: string;
}

/** The problem of a file mapOngridPersona refused (its AppError `bad_request`), or null for any other error. */
function problemOf(error: unknown): FileProblem | null {
  if (!(error instanceof AppError) || error.code !== "bad_request") return null;
  const details = (error.details ?? {}) as { file?: unknown; field?: unknown };
  if (typeof details.file !== "string") return null;
  return { file: details.file, ...(typeof details.field === "string" ? { field: details.field } : {}), message: error.message };
}

/**
 * Previews or imports ongrid persona files (`POST /api/v1/personas/import/ongrid`, admin; DESIGN.md
 * "Integrations"): every file is mapped (mapOngridPersona), names must be distinct across the files,
 * and each mapping says whether it replaces a stored persona. With `save` false nothing is stored;
 * with `save` true every persona is created or replaces the stored one of its name in one transaction
 * with one `persona.imported` audit entry (details `source: "ongrid"` and the file names), as the YAML
 * import does. All or nothing. Returns OngridPersonaImportResult. Every file is read before anything is
 * refused, so one answer names every file that cannot be imported: AppError `bad_request` whose message
 * is the file's problem (`<file>: <why>`), or for several `<n> files cannot be imported: …` with each
 * problem; `details` names the first file (and field) and lists them all as `problems`.
 */
export async function importOngridPersonas(identity: Identity, body: OngridPersonaImportBody): Promise<OngridPersonaImportResult> {
  const mapped: OngridPersonaImport[] = [];
  const files = new Map<string, string>();
  const problems: FileProblem[] = [];
  for (const file of body.files) {
    let persona: OngridPersonaImport["persona"];
    let notes: string[];
    try {
      ({ persona, notes } = mapOngridPersona(file.name, file.text));
    } catch (error) {
      const problem = problemOf(error);
      if (problem === null) throw error;
      problems.push(problem);
      continue;
    }
    const earlier = files.get(persona.name);
    if (earlier !== undefined) {
      problems.push({ file: file.name, field: "name", message: `${file.name}: persona ${JSON.stringify(persona.name)} is also in ${earlier}; import one of them` });
      continue;
    }
    files.set(persona.name, file.name);
    mapped.push({ file: file.name, persona, notes, replaces: (await findPersona(persona.name)) !== null });
  }
  if (problems.length > 0) {
    const [first] = problems as [FileProblem, ...FileProblem[]];
    const message = problems.length === 1 ? first.message : `${problems.length} files cannot be imported: ${problems.map((problem) => problem.message).join("; ")}`;
    throw new AppError("bad_request", message, { file: first.file, ...(first.field === undefined ? {} : { field: first.field }), problems });
  }
  if (!body.save) return { saved: false, personas: mapped, created: [], replaced: [] };
  const stored = await storeImportedPersonas(
    identity,
    mapped.map((entry) => entry.persona),
    { source: "ongrid", files: mapped.map((entry) => entry.file) },
  );
  return { saved: true, personas: mapped.map((entry) => ({ ...entry, replaces: stored.replaced.includes(entry.persona.name) })), created: stored.created, replaced: stored.replaced };
}
