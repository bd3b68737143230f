import type { Worker as WorkerRow, WorkerToken as WorkerTokenRow } from "@prisma/client";
import { noteWorkerContact } from "./worker-contact";
import { recordRefusal } from "../audit/audit-trail";
import { statements } from "../db-statements";
import { AppError } from "../errors";
import { hashWorkerToken, parseLabels, WORKER_TOKEN_PREFIX } from "./worker-tokens";

/** Who sends a worker request: the worker token it carries. */
export interface WorkerCaller {
  tokenId: string;
  tokenName: string;
  /** The token's own labels. */
  labels: string[];
  local: boolean;
}

/**
 * Identifies a worker request (DESIGN.md: endpoints under `/api/v1/workers/…` accept only worker
 * tokens): `Authorization: Bearer skw_…` naming a live worker token. Anything else — no header, a
 * person's session, an API token, a revoked or unknown worker token — answers 401 `unauthenticated`.
 * Returns the caller.
 */
export async function identifyWorker(request: Request): Promise<WorkerCaller> {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (!token || !token.startsWith(WORKER_TOKEN_PREFIX)) {
    throw new AppError("unauthenticated", "worker endpoints accept only a worker token (Authorization: Bearer skw_…; made on the Workers page)");
  }
  // Raw SQL: every worker request pays this lookup (a model query costs ~1 ms of CPU more).
  const [row] = await statements().$queryRaw<Array<Pick<WorkerTokenRow, "id" | "name" | "labels" | "local" | "revokedAt">>>`
    SELECT "id", "name", "labels", "local", "revokedAt" FROM "WorkerToken" WHERE "tokenHash" = ${hashWorkerToken(token)}`;
  if (!row || row.revokedAt) throw new AppError("unauthenticated", "the worker token is invalid or revoked");
  return { tokenId: row.id, tokenName: row.name, labels: parseLabels(row.labels), local: row.local };
}

/**
 * The worker session `workerId` for a request of `caller`: it must exist, belong to the caller's token
 * and not be stopped (DESIGN.md: a worker can only touch what it claimed, with its own token). A
 * refusal is written to the audit trail (`worker.refused`, who, what, why) and throws AppError
 * `forbidden` (403), or `not_found` for an unknown id. Notes the contact (noteWorkerContact).
 */
export async function requireWorkerSession(caller: WorkerCaller, workerId: string, what: string): Promise<WorkerRow> {
  const [worker] = await statements().$queryRaw<WorkerRow[]>`SELECT * FROM "Worker" WHERE "id" = ${workerId}`;
  if (!worker) throw new AppError("not_found", `no worker session ${JSON.stringify(workerId)}; register again`);
  if (worker.tokenId !== caller.tokenId) {
    await refuseWorker(caller, what, `worker session ${workerId} belongs to another worker token`);
  }
  // Audited like any refused attempt (issue 10 point 4): a stopped session's token may be in other hands.
  if (worker.stoppedAt) await refuseWorker(caller, what, `worker session ${workerId} was stopped at ${worker.stoppedAt.toISOString()}; register again`);
  // Before anything is written: a worker whose writes the busy database refuses is still alive.
  noteWorkerContact(workerId);
  return worker;
}

/** Writes a `worker.refused` audit entry (recordRefusal: a busy database delays it, never loses it) and throws AppError `forbidden` with `reason`. */
export async function refuseWorker(caller: WorkerCaller, what: string, reason: string, callId: string | null = null): Promise<never> {
  await recordRefusal({ action: "worker.refused", actor: `worker-token:${caller.tokenName}`, callId, details: { what, reason, tokenId: caller.tokenId } });
  throw new AppError("forbidden", reason);
}
