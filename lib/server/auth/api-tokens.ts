import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { ApiToken as ApiTokenRow, User as UserRow } from "@prisma/client";
import { isRole, roleAtLeast, type ApiTokenInfo, type Identity, type Role } from "@/lib/types/identity";
import { db } from "../db";
import { statements } from "../db-statements";
import { AppError } from "../errors";
import { recordAudit } from "../audit/audit-trail";
import { findPersona } from "../personas/persona-store";
import { accessChanged } from "./access-changes";

/** Every token starts with this, so a leaked one is recognisable by secret scanners. */
export const TOKEN_PREFIX = "skc_";

/** SHA-256 (hex) of a token: what the database keeps. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function toInfo(row: ApiTokenRow & { owner: Pick<UserRow, "email"> }): ApiTokenInfo {
  return {
    id: row.id,
    name: row.name,
    persona: row.persona,
    owner: row.owner.email,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Creates an API token (`POST /api/v1/tokens` `{persona, name}`, operator and above; issue 4 point 1):
 * 32 random bytes, shown once in the answer and stored only as its SHA-256. The creator owns it; an
 * agent sending it acts as `persona` with the owner's role capped at operator. Only a person (a session)
 * may create tokens.
 * Returns `{token, info}`; throws `bad_request` (bad name), `not_found` (unknown persona), `forbidden`.
 */
export async function createApiToken(identity: Identity, input: { persona: unknown; name: unknown }): Promise<{ token: string; info: ApiTokenInfo }> {
  if (identity.via !== "session") throw new AppError("forbidden", "tokens are created by a person signed in to the console, not by another token");
  if (typeof input.name !== "string" || input.name.trim() === "" || input.name.trim().length > 100) {
    throw new AppError("bad_request", "name must be a non-empty string of at most 100 characters");
  }
  if (typeof input.persona !== "string" || input.persona.trim() === "") throw new AppError("bad_request", "persona must name a persona");
  const persona = await findPersona(input.persona.trim());
  if (!persona) throw new AppError("not_found", `no persona named ${JSON.stringify(input.persona)}`);
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await db().apiToken.create({
    data: { id: randomUUID(), name: input.name.trim(), persona: persona.name, ownerId: identity.userId, tokenHash: hashToken(token), prefix: token.slice(0, TOKEN_PREFIX.length + 6) },
    include: { owner: { select: { email: true } } },
  });
  await recordAudit({ action: "token.created", actor: identity.email, actorId: identity.userId, details: { tokenId: row.id, name: row.name, persona: row.persona } });
  return { token, info: toInfo(row) };
}

/** The tokens `identity` may see (`GET /api/v1/tokens`): its own, or every token for an admin; newest first. */
export async function listApiTokens(identity: Identity): Promise<ApiTokenInfo[]> {
  const rows = await db().apiToken.findMany({
    where: roleAtLeast(identity.role, "admin") ? {} : { ownerId: identity.userId },
    orderBy: { createdAt: "desc" },
    include: { owner: { select: { email: true } } },
  });
  return rows.map(toInfo);
}

/**
 * Revokes a token (`DELETE /api/v1/tokens/{id}`): its owner or an admin. The next request with it
 * answers 401, and the event streams opened with it end at once. Returns the revoked token; throws `not_found` (also for someone else's token, so ids
 * are not confirmed to non-owners).
 */
export async function revokeApiToken(identity: Identity, tokenId: string): Promise<ApiTokenInfo> {
  const row = await db().apiToken.findUnique({ where: { id: tokenId } });
  if (!row || (row.ownerId !== identity.userId && !roleAtLeast(identity.role, "admin"))) {
    throw new AppError("not_found", `no token with id ${JSON.stringify(tokenId)}`);
  }
  const updated = await db().apiToken.update({
    where: { id: tokenId },
    data: { revokedAt: row.revokedAt ?? new Date() },
    include: { owner: { select: { email: true } } },
  });
  if (!row.revokedAt) await recordAudit({ action: "token.revoked", actor: identity.email, actorId: identity.userId, details: { tokenId, name: row.name } });
  // The token's open event streams end now.
  accessChanged(row.ownerId);
  return toInfo(updated);
}

/** How often a token's lastUsedAt is rewritten at most, in ms (one write per minute, not per request). */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The highest role an agent acts with, whatever its token's owner is. An agent runs calls under its
 * token's persona, reads, and cancels; it never administers the console: an admin's token that carried
 * `admin` would let the agent create approvers with passwords it chose, sign in as them and sign its
 * own dangerous call (and rewrite personas, or revoke every token). Signing, denying and confirming
 * are refused to tokens separately (requirePerson).
 */
export const TOKEN_ROLE_CAP: Role = "operator";

/**
 * The identity of a bearer token, or null when it is unknown or revoked. The owner's role is read now,
 * so demoting the owner demotes the token at once; it is capped at TOKEN_ROLE_CAP.
 */
export async function identifyToken(token: string): Promise<Identity | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  // Raw SQL: every agent request pays this lookup, and a model query costs ~1 ms of CPU more.
  const [row] = await statements().$queryRaw<Array<{ id: string; name: string; persona: string; revokedAt: Date | null; lastUsedAt: Date | null; ownerId: string; email: string; ownerName: string; role: string }>>`
    SELECT t."id", t."name", t."persona", t."revokedAt", t."lastUsedAt", u."id" AS "ownerId", u."email", u."name" AS "ownerName", u."role"
    FROM "ApiToken" t JOIN "User" u ON u."id" = t."ownerId" WHERE t."tokenHash" = ${hashToken(token)}`;
  if (!row || row.revokedAt) return null;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Not awaited, and its failure ignored: a read must not fail (nor wait) because the database is
    // busy and this bookkeeping write cannot land (issue 10 point 2); the next request tries again.
    statements()
      .$executeRaw`UPDATE "ApiToken" SET "lastUsedAt" = ${new Date(now)} WHERE "id" = ${row.id}`
      .catch(() => undefined);
  }
  const ownerRole: Role = isRole(row.role) ? row.role : "viewer";
  return {
    userId: row.ownerId,
    email: row.email,
    name: row.ownerName,
    role: roleAtLeast(ownerRole, TOKEN_ROLE_CAP) ? TOKEN_ROLE_CAP : ownerRole,
    via: "token",
    token: { id: row.id, name: row.name, persona: row.persona },
  };
}
