import { randomUUID } from "node:crypto";
import type { Identity } from "@/lib/types/identity";
import type { Persona } from "@/lib/types/persona";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { AppError } from "../errors";
import { parsePersonaInput } from "./persona-input";
import { auditActor, toPersona, toPersonaRow } from "./persona-store";
import { modelTransaction } from "../db-transactions";

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === "P2002";
}

/**
 * Says why a persona body was refused by its schema (lib/validation/persona-requests.ts), in
 * parsePersonaInput's words (the field named in the message and in details `{persona, field}`);
 * `pathName` is the persona of a PUT's path, used when the body names none. Throws that AppError
 * `bad_request`; returns when it finds nothing to say (checkRequestBody then answers with the schema's message).
 */
export function explainPersona(raw: unknown, pathName?: string): void {
  const body = pathName !== undefined && typeof raw === "object" && raw !== null && !Array.isArray(raw) && !("name" in raw) ? { ...raw, name: pathName } : raw;
  parsePersonaInput(body, { allowOutputFields: true });
}

/**
 * Creates a persona (`POST /api/v1/personas`, admin; issue 4 point 2) from a JSON body validated by
 * parsePersonaInput, writing `persona.created` to the audit trail in the same transaction (STYLE.md
 * rule 6). Returns the stored persona; throws AppError `bad_request` (a bad or unknown field) or
 * `conflict` (409, the name is taken).
 */
export async function createPersona(identity: Identity, raw: unknown): Promise<Persona> {
  const input = parsePersonaInput(raw, { allowOutputFields: true });
  const taken = () => new AppError("conflict", `a persona named ${JSON.stringify(input.name)} already exists; replace it with PUT /api/v1/personas/${input.name}`);
  if (await db().persona.findUnique({ where: { name: input.name }, select: { id: true } })) throw taken();
  try {
    const row = await modelTransaction(async (tx) => {
      const created = await tx.persona.create({ data: { id: randomUUID(), ...toPersonaRow(input) } });
      await recordAudit({ action: "persona.created", ...auditActor(identity), details: { persona: input } }, tx);
      return created;
    });
    return toPersona(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}

/**
 * Replaces the persona `name` with a JSON body (`PUT /api/v1/personas/{name}`, admin): every field is
 * taken from the body (a field left out gets its default: empty description and lists, every
 * category). The body's `name`, when given, must equal `name` (personas are not renamed: tokens and
 * calls refer to them by name). The default persona may be edited. Writes `persona.updated` with the
 * before and after in the same transaction. Returns the stored persona; throws `bad_request`,
 * `not_found` (404).
 */
export async function replacePersona(identity: Identity, name: string, raw: unknown): Promise<Persona> {
  const body = typeof raw === "object" && raw !== null && !Array.isArray(raw) && !("name" in raw) ? { ...raw, name } : raw;
  const input = parsePersonaInput(body, { allowOutputFields: true });
  if (input.name !== name) {
    throw new AppError("bad_request", `name ${JSON.stringify(input.name)} differs from the persona in the path (${JSON.stringify(name)}); personas cannot be renamed`, { persona: name, field: "name" });
  }
  const row = await modelTransaction(async (tx) => {
    const before = await tx.persona.findUnique({ where: { name } });
    if (!before) throw new AppError("not_found", `no persona named ${JSON.stringify(name)}`);
    const updated = await tx.persona.update({ where: { name }, data: toPersonaRow(input) });
    await recordAudit({ action: "persona.updated", ...auditActor(identity), details: { persona: input, before: toPersona(before) } }, tx);
    return updated;
  });
  return toPersona(row);
}
