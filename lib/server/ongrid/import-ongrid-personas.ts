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

/**
 * Previews or imports ongrid persona files (`POST /api/v1/personas/import/ongrid`, admin; DESIGN.md
 * "Integrations"): every file is mapped (mapOngridPersona), names must be distinct across the files,
 * and each mapping says whether it replaces a stored persona. With `save` false nothing is stored;
 * with `save` true every persona is created or replaces the stored one of its name in one transaction
 * with one `persona.imported` audit entry (details `source: "ongrid"` and the file names), as the YAML
 * import does. All or nothing. Returns OngridPersonaImportResult; throws AppError `bad_request` naming
 * the file (and field, in `details`) that cannot be mapped.
 */
export async function importOngridPersonas(identity: Identity, body: OngridPersonaImportBody): Promise<OngridPersonaImportResult> {
  const mapped: OngridPersonaImport[] = [];
  const files = new Map<string, string>();
  for (const file of body.files) {
    const { persona, notes } = mapOngridPersona(file.name, file.text);
    const earlier = files.get(persona.name);
    if (earlier !== undefined) throw new AppError("bad_request", `${file.name}: persona ${JSON.stringify(persona.name)} is also in ${earlier}; import one of them`, { file: file.name, field: "name" });
    files.set(persona.name, file.name);
    mapped.push({ file: file.name, persona, notes, replaces: (await findPersona(persona.name)) !== null });
  }
  if (!body.save) return { saved: false, personas: mapped, created: [], replaced: [] };
  const stored = await storeImportedPersonas(
    identity,
    mapped.map((entry) => entry.persona),
    { source: "ongrid", files: mapped.map((entry) => entry.file) },
  );
  return { saved: true, personas: mapped.map((entry) => ({ ...entry, replaces: stored.replaced.includes(entry.persona.name) })), created: stored.created, replaced: stored.replaced };
}
