import { randomUUID } from "node:crypto";
import type { Identity } from "@/lib/types/identity";
import type { Persona } from "@/lib/types/persona";
import { recordAudit } from "../audit/audit-trail";
import { Prisma, type Persona as PersonaRow } from "@prisma/client";
import { statementTransaction } from "../db-statements";
import { parsePersonasYamlOffThread } from "./persona-yaml";
import type { PersonaInput } from "./persona-input";
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
  return storeImportedPersonas(identity, await parsePersonasYamlOffThread(text));
}

/**
 * Stores validated persona inputs as an import does (importPersonas; the ongrid persona import, lib/
 * server/ongrid): each created or replacing the stored one of its name, in one transaction with one
 * `persona.imported` audit entry whose details are `{created, replaced, personas}` plus `auditDetails`
 * (e.g. `{source: "ongrid", files}`). Returns the ImportResult; a database error changes nothing.
 */
export async function storeImportedPersonas(identity: Identity, inputs: readonly PersonaInput[], auditDetails: Record<string, unknown> = {}): Promise<ImportResult> {
  if (inputs.length === 0) return { personas: [], created: [], replaced: [] };
  // Plain statements in one BEGIN IMMEDIATE transaction: through Prisma's client, 500 personas took
  // ~2 s of queries while the connection was this request's alone, and every other request waited.
  return statementTransaction(async (tx) => {
    const existing = new Set(
      (await tx.$queryRaw<Array<{ name: string }>>`SELECT "name" FROM "Persona" WHERE "name" IN (${Prisma.join(inputs.map((input) => input.name))})`).map((row) => row.name),
    );
    const result: ImportResult = { personas: [], created: [], replaced: [] };
    const now = new Date();
    for (const input of inputs) {
      const data = toPersonaRow(input);
      const [row] = await tx.$queryRaw<PersonaRow[]>`
        INSERT INTO "Persona" ("id", "name", "description", "permissionMode", "allow", "deny", "categories", "createdAt", "updatedAt")
        VALUES (${randomUUID()}, ${data.name}, ${data.description}, ${data.permissionMode}, ${data.allow}, ${data.deny}, ${data.categories}, ${now}, ${now})
        ON CONFLICT ("name") DO UPDATE SET "description" = excluded."description", "permissionMode" = excluded."permissionMode", "allow" = excluded."allow",
          "deny" = excluded."deny", "categories" = excluded."categories", "updatedAt" = excluded."updatedAt"
        RETURNING *`;
      (existing.has(input.name) ? result.replaced : result.created).push(input.name);
      result.personas.push(toPersona(row!));
    }
    await recordAudit({ action: "persona.imported", ...auditActor(identity), details: { ...auditDetails, created: result.created, replaced: result.replaced, personas: inputs } }, tx);
    return result;
  });
}
