import type { Identity } from "@/lib/types/identity";
import type { Persona } from "@/lib/types/persona";
import { recordAudit } from "../audit/audit-trail";
import { AppError } from "../errors";
import { isDefaultPersona } from "./persona-input";
import { auditActor, toPersona } from "./persona-store";
import { modelTransaction } from "../db-transactions";

/**
 * Deletes the persona `name` (`DELETE /api/v1/personas/{name}`, admin), writing `persona.deleted` (with
 * what was deleted) in the same transaction. Refuses with 409 `conflict` the default persona (calls
 * naming none run under it) and a persona that unrevoked API tokens act as (the message names them:
 * revoke them first). Returns the deleted persona; throws `not_found` (404), `conflict` (409).
 */
export async function deletePersona(identity: Identity, name: string): Promise<Persona> {
  if (isDefaultPersona(name)) throw new AppError("conflict", `the default persona cannot be deleted: calls that name no persona run under it (it may be edited)`);
  const row = await modelTransaction(async (tx) => {
    const existing = await tx.persona.findUnique({ where: { name } });
    if (!existing) throw new AppError("not_found", `no persona named ${JSON.stringify(name)}`);
    const tokens = await tx.apiToken.findMany({
      where: { persona: name, revokedAt: null },
      orderBy: { name: "asc" },
      select: { id: true, name: true, owner: { select: { email: true } } },
    });
    if (tokens.length > 0) {
      const list = tokens.map((token) => `${JSON.stringify(token.name)} (${token.owner.email})`).join(", ");
      throw new AppError("conflict", `persona ${JSON.stringify(name)} is used by API token${tokens.length > 1 ? "s" : ""} ${list}; revoke ${tokens.length > 1 ? "them" : "it"} first`, {
        tokens: tokens.map((token) => ({ id: token.id, name: token.name, owner: token.owner.email })),
      });
    }
    await tx.persona.delete({ where: { name } });
    await recordAudit({ action: "persona.deleted", ...auditActor(identity), details: { persona: toPersona(existing) } }, tx);
    return existing;
  });
  return toPersona(row);
}
