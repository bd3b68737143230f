import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { WorkerToken as WorkerTokenRow } from "@prisma/client";
import type { WorkerTokenInfo } from "@/lib/types/worker";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { AppError } from "../errors";
import { interruptWorkerCalls } from "../calls/interrupt-calls";

/** Every worker token starts with this, so one is never mistaken for an API token (`skc_`) and scanners spot leaks. */
export const WORKER_TOKEN_PREFIX = "skw_";

/** SHA-256 (hex) of a worker token: what the database keeps. */
export function hashWorkerToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Maps a row to the listed shape (never the token). */
export function toWorkerTokenInfo(row: WorkerTokenRow): WorkerTokenInfo {
  return {
    id: row.id,
    name: row.name,
    labels: parseLabels(row.labels),
    prefix: row.prefix,
    local: row.local,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Parses a JSON labels column; anything unexpected reads as no labels. */
export function parseLabels(text: string): string[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  } catch {
    return [];
  }
}

/** Who creates or revokes a worker token: an admin (`Identity`), or `system` for the local worker's. */
export interface WorkerTokenActor {
  email: string;
  userId: string | null;
}

/** A worker token's input as parsed by the route (lib/validation/request-schemas). */
export interface NewWorkerToken {
  name: string;
  labels: string[];
}

/**
 * Creates a worker token (`POST /api/v1/worker-tokens`, admin, a person; DESIGN.md "Worker tokens"):
 * 32 random bytes after `skw_`, shown once in the answer and stored only as its SHA-256, with the
 * labels every worker using it gets. Writes `worker_token.created`. Returns `{token, info}`.
 */
export async function createWorkerToken(actor: WorkerTokenActor, input: NewWorkerToken, options: { local?: boolean } = {}): Promise<{ token: string; info: WorkerTokenInfo }> {
  const token = `${WORKER_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await db().workerToken.create({
    data: {
      id: randomUUID(),
      name: input.name,
      labels: JSON.stringify(input.labels),
      tokenHash: hashWorkerToken(token),
      prefix: token.slice(0, WORKER_TOKEN_PREFIX.length + 6),
      local: options.local === true,
      createdBy: actor.email,
    },
  });
  await recordAudit({ action: "worker_token.created", actor: actor.email, actorId: actor.userId, details: { tokenId: row.id, name: row.name, labels: input.labels, local: row.local } });
  return { token, info: toWorkerTokenInfo(row) };
}

/** Every worker token, newest first (`GET /api/v1/worker-tokens`, admin). */
export async function listWorkerTokens(): Promise<WorkerTokenInfo[]> {
  const rows = await db().workerToken.findMany({ orderBy: { createdAt: "desc" } });
  return rows.map(toWorkerTokenInfo);
}

/**
 * Revokes a worker token (`DELETE /api/v1/worker-tokens/{id}`, admin): its next request answers 401,
 * the workers registered with it are marked stopped, and their running calls end `interrupted`
 * (DESIGN.md: revoking one ends that worker's claims). Writes `worker_token.revoked`. Returns the token;
 * throws `not_found`.
 */
export async function revokeWorkerToken(actor: WorkerTokenActor, tokenId: string): Promise<WorkerTokenInfo> {
  const row = await db().workerToken.findUnique({ where: { id: tokenId } });
  if (!row) throw new AppError("not_found", `no worker token with id ${JSON.stringify(tokenId)}`);
  const now = new Date();
  const updated = await db().workerToken.update({ where: { id: tokenId }, data: { revokedAt: row.revokedAt ?? now } });
  const workers = await db().worker.findMany({ where: { tokenId }, select: { id: true } });
  await db().worker.updateMany({ where: { tokenId, stoppedAt: null }, data: { stoppedAt: now } });
  for (const worker of workers) {
    await interruptWorkerCalls(worker.id, `worker token ${row.name} was revoked while the call ran`);
  }
  if (!row.revokedAt) await recordAudit({ action: "worker_token.revoked", actor: actor.email, actorId: actor.userId, details: { tokenId, name: row.name } });
  return toWorkerTokenInfo(updated);
}
