import { randomUUID } from "node:crypto";
import type { Identity } from "@/lib/types/identity";
import type { Persona } from "@/lib/types/persona";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { parsePersonasYamlOffThread } from "./persona-yaml";
import { auditActor, toPersona, toPersonaRow } from "./persona-store";

/** What an import did: the stored personas in document order, and which names were new or replaced. */
export interface ImportResult {
  personas: Persona[];
  created: string[];
  replaced: string[];
}

/**
 * Imports a persona YAML document (`POST /api/v1/personas/import`, admin; issue 4 point 2): every
 * listed persona is created, or replaces the stored one of that name (the default persona included),
 * all in one transaction with one `persona.imported` audit entry — any error changes nothing.
 * Personas not listed are left alone. Returns the ImportResult; throws what parsePersonasYaml throws
 * (`bad_request` naming the persona and field, `args_too_large`).
 */
export async function importPersonas(identity: Identity, text: string): Promise<ImportResult> {
  const inputs = await parsePersonasYamlOffThread(text);
  return db().$transaction(async (tx) => {
    const result: ImportResult = { personas: [], created: [], replaced: [] };
    for (const input of inputs) {
      const data = toPersonaRow(input);
      const existing = await tx.persona.findUnique({ where: { name: input.name }, select: { id: true } });
      const row = existing ? await tx.persona.update({ where: { name: input.name }, data }) : await tx.persona.create({ data: { id: randomUUID(), ...data } });
      (existing ? result.replaced : result.created).push(input.name);
      result.personas.push(toPersona(row));
    }
    await recordAudit({ action: "persona.imported", ...auditActor(identity), details: { created: result.created, replaced: result.replaced, personas: inputs } }, tx);
    return result;
  });
}
