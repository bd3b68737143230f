import { config } from "../env";
import { checkJsonObjectText, ValidationBusyError } from "@/lib/validation/args-validator";
import type { Call as CallRow, Worker as WorkerRow } from "@prisma/client";
import type { Call, CallEvent } from "@/lib/types/call";
import type { EventsReport, FinishReport, SpawnReport } from "@/lib/types/worker";
import { approvalsChanged } from "../approvals/approval-feed";
import { voidApprovalOfCall } from "../approvals/void-approval";
import { publishEnd, publishEvents } from "../calls/call-bus";
import { storeEvents } from "../calls/call-events";
import { toCall } from "../calls/call-record";
import { recordAudit } from "../audit/audit-trail";
import { selectCallSql, updateCallSql } from "../calls/call-sql";
import { transitionCall, type CallWriter } from "../calls/call-transitions";
import { isUniqueViolation, statementTransaction, statements, type SqlRunner } from "../db-statements";
import { AppError } from "../errors";
import { storableText } from "../postgres-adapter";
import { refuseWorker, type WorkerCaller } from "./worker-auth";

/**
 * Refuses a report about a call the worker does not run (DESIGN.md: a worker can only touch calls it
 * claimed): 404 for an unknown call, 403 (audited `worker.refused`) for a call claimed by another
 * worker or never claimed, 409 `conflict` for its own call that has already ended (interrupted after
 * a lapsed lease, cancelled) — the worker must then stop it.
 */
async function refuseReport(caller: WorkerCaller, worker: WorkerRow, callId: string, what: string): Promise<never> {
  const row = await selectCallSql(statements(), callId);
  if (!row) throw new AppError("not_found", `no call with id ${JSON.stringify(callId)}`);
  if (row.workerId !== worker.id) return refuseWorker(caller, what, `call ${callId} was not claimed by worker ${worker.name} (${worker.id})`, callId);
  throw new AppError("conflict", `call ${callId} is ${row.status}, no longer running on this worker: stop it`);
}

/**
 * Refuses (as refuseReport does: 404, 403 audited, 409) a report about a call that is not `worker`'s
 * running call before its body is read: a worker token posting megabytes about another worker's call
 * must not have them parsed first (issue 10 point 1). The report's own transaction checks again.
 */
export async function refuseReportOfOthers(caller: WorkerCaller, worker: WorkerRow, callId: string, what: string): Promise<void> {
  // Two columns, not the row: every finish and events report pays this read.
  const [row] = await statements().$queryRaw<Array<Pick<CallRow, "workerId" | "status">>>`SELECT "workerId", "status" FROM "Call" WHERE "id" = ${callId}`;
  if (!row || row.workerId !== worker.id || row.status !== "running") await refuseReport(caller, worker, callId, what);
}

/** Thrown inside a finish transaction to roll it back when the call is not the worker's running call. */
class NotOwned extends Error {}

/** The columns a spawn report sets: where the process runs, and when it started (the worker's clock). */
function spawnColumns(spawned: SpawnReport | undefined) {
  if (!spawned) return {};
  return { pgid: spawned.pgid, host: spawned.host, bootId: spawned.bootId, procStart: spawned.procStart, startedAt: new Date(spawned.at) };
}

/** Writes `call.started` for a reported spawn, in the transaction that stores it. */
async function auditStart(tx: CallWriter, worker: WorkerRow, callId: string, spawned: SpawnReport): Promise<void> {
  const [call] = await tx.$queryRaw<Array<Pick<CallRow, "skill" | "digest">>>`SELECT "skill", "digest" FROM "Call" WHERE "id" = ${callId}`;
  await recordAudit({ action: "call.started", actor: "system", callId, skill: call!.skill, digest: call!.digest, details: { worker: worker.name, workerId: worker.id, pid: spawned.pid, host: spawned.host } }, tx);
}

/**
 * READ COMMITTED on PostgreSQL (PostgresIsolation) for a worker's timeline and finish reports: each
 * one's compare-and-set locks the call's row before the stderr budget is read and written back
 * (storeReportedEvents), and what a finish reads before that (the skill and digest, which never
 * change; who asked for a cancel, for the error's words) needs no lock.
 */
const REPORT_ISOLATION = { postgresIsolation: "read committed" } as const;

/**
 * Stores timeline lines a worker reports for a call it runs (`POST /api/v1/workers/{id}/calls/{callId}/events`),
 * and, once, where its process runs and how it is sandboxed (the spawn sets `startedAt` and writes
 * `call.started`). The ownership check and the insert are one
 * transaction, so lines never land after the call ended. Then publishes them to the call's live
 * streams. Throws like refuseReport, or `conflict` for a seq already stored.
 */
export async function recordWorkerEvents(caller: WorkerCaller, worker: WorkerRow, callId: string, report: EventsReport): Promise<void> {
  let stored: CallEvent[] | null;
  try {
    stored = await statementTransaction(
      async (tx) => {
        const data = {
          ...spawnColumns(report.spawned),
          ...(report.sandbox ? { sandbox: JSON.stringify(report.sandbox) } : {}),
          ...(report.events.length > 0 ? { eventCount: report.events[report.events.length - 1]!.seq } : {}),
        };
        // The compare-and-set first: it locks the call's row before its stderr budget is read and written back.
        const changed = await updateCallSql(tx, callId, ["running"], { ...data, workerName: worker.name }, { workerId: worker.id });
        if (!changed) return null;
        const kept = await storeReportedEvents(tx, callId, report.events);
        if (report.spawned) await auditStart(tx, worker, callId, report.spawned);
        return kept.events;
      },
      REPORT_ISOLATION,
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", `call ${callId}: a line with one of these seq numbers is already stored`);
    throw error;
  }
  if (stored === null) return refuseReport(caller, worker, callId, "report timeline lines");
  publishEvents(callId, stored);
}

/** Bytes of `system` lines a call may store beyond SKILL_STDERR_LIMIT_BYTES (the worker's notes: truncation, the end). */
const SYSTEM_LINES_SLACK_BYTES = 64 * 1024;

/**
 * Stores the lines of a report that the call may still store, in the caller's transaction `tx`, which
 * must already have locked the call's row by writing it (its compare-and-set): the call's timeline holds
 * at most the console's own SKILL_STDERR_LIMIT_BYTES (plus SYSTEM_LINES_SLACK_BYTES) whatever its worker
 * sends — a hostile worker stored 15 MB of stderr for one call in one report, and could go on without
 * end. The rest is dropped and the call marked `stderrTruncated`. Reads the call's `stderrBytes`, inserts
 * the kept lines (storeEvents) and writes the new count back (with `stderrTruncated` = true when a line
 * was dropped; never set back to false). The same for a timeline report and a finish report. Returns the
 * lines stored, to publish after the commit, and whether any was dropped.
 */
async function storeReportedEvents(tx: CallWriter, callId: string, events: readonly CallEvent[]): Promise<{ events: CallEvent[]; dropped: boolean }> {
  if (events.length === 0) return { events: [], dropped: false };
  const [row] = await tx.$queryRaw<Array<{ stderrBytes: number }>>`SELECT "stderrBytes" FROM "Call" WHERE "id" = ${callId}`;
  const before = Number(row?.stderrBytes ?? 0);
  let left = config().stderrLimitBytes + SYSTEM_LINES_SLACK_BYTES - before;
  const kept: CallEvent[] = [];
  let dropped = false;
  for (const event of events) {
    const bytes = Buffer.byteLength(event.line, "utf8");
    if (bytes > left) {
      dropped = true;
      continue;
    }
    left -= bytes;
    // U+0000 as U+FFFD, on both engines (PostgreSQL's text cannot hold it): the same timeline everywhere.
    kept.push(event.line.includes("\u0000") ? { ...event, line: storableText(event.line) } : event);
  }
  const added = kept.reduce((sum, event) => sum + Buffer.byteLength(event.line, "utf8"), 0);
  if (kept.length > 0) await storeEvents(callId, kept, tx);
  await tx.$executeRaw`UPDATE "Call" SET "stderrBytes" = ${before + added}, "stderrTruncated" = ("stderrTruncated" OR ${dropped}) WHERE "id" = ${callId}`;
  return { events: kept, dropped };
}

/**
 * The report with its result checked to be one JSON object (checkJsonObjectText) of at most
 * SKILL_STDOUT_LIMIT_BYTES (the console's own limit: a worker elsewhere may be configured otherwise), as every stored
 * result must be (it is served unparsed: lib/server/http/stored-json.ts). A worker's own checks make
 * anything else a bug or a hostile worker; such a result is dropped and the call ends `failed` with
 * the reason, rather than stored where every listing of the call would carry it.
 */
async function withCheckedResult(report: FinishReport, oversizedResultBytes?: number): Promise<FinishReport> {
  const limit = config().stdoutLimitBytes;
  const tooLarge = `it is larger than SKILL_STDOUT_LIMIT_BYTES (${limit} bytes)`;
  if (report.result === null && oversizedResultBytes === undefined) return report;
  let why: string | null;
  try {
    why = oversizedResultBytes !== undefined || Buffer.byteLength(report.result!, "utf8") > limit ? tooLarge : await checkJsonObjectText(report.result!);
  } catch (error) {
    // The thread ran out of time on a loaded machine: the worker sends the finish again (503), the result is kept.
    if (error instanceof ValidationBusyError) throw new AppError("unavailable", `the console is too busy to check this result now (${error.message}); retry`, { retryAfterSeconds: 1 });
    throw error;
  }
  if (why === null) return report;
  return { ...report, status: report.status === "succeeded" ? "failed" : report.status, result: null, error: `the result the worker reported was not stored: ${why}` };
}

/** `error` of a call ending `cancelled`, with who asked for the cancel when someone did (their `call.cancel_requested` entry). */
async function withCanceller(tx: SqlRunner, callId: string, error: string | null): Promise<string | null> {
  const [request] = await tx.$queryRaw<Array<{ actor: string }>>`SELECT "actor" FROM "AuditEvent" WHERE "callId" = ${callId} AND "action" = 'call.cancel_requested' ORDER BY "id" LIMIT 1`;
  if (!request) return error;
  return error && error !== "cancelled" ? `${error} (asked by ${request.actor})` : `cancelled on request by ${request.actor}`;
}

/**
 * Stores the end of a call a worker ran (`POST /api/v1/workers/{id}/calls/{callId}/finish`; DESIGN.md:
 * the console decides every transition): its last lines and the compare-and-set `running` → the
 * reported end state, owned by this worker, with result, exit code, error, duration and the
 * `call.finished` audit entry, in one transaction. A call refused for a digest mismatch ends
 * `expired` and its approval is voided (DESIGN.md "Dual-sign rules": any mismatch voids the approval
 * for good). Publishes the end to the call's streams and waiters. `oversizedResultBytes`: the size of
 * a result the body reader left out for being past SKILL_STDOUT_LIMIT_BYTES (the call then fails,
 * saying so). Returns the Call; throws like refuseReport.
 */
export async function finishWorkerCall(caller: WorkerCaller, worker: WorkerRow, callId: string, reported: FinishReport, oversizedResultBytes?: number): Promise<Call> {
  const report = await withCheckedResult(reported, oversizedResultBytes);
  const status = report.digestMismatch !== undefined ? "expired" : report.status;
  const now = new Date();
  let row: CallRow;
  let stored: CallEvent[] = [];
  try {
    row = await statementTransaction(async (tx) => {
      const last = report.events.at(-1)?.seq;
      // In the trail's order: the start (when no events report carried it) before the end.
      if (report.spawned) await auditStart(tx, worker, callId, report.spawned);
      // A call cancelled on request says by whom (the request's audit entry: lib/server/requests/cancel-call.ts).
      const error = status === "cancelled" ? await withCanceller(tx, callId, report.error) : (report.digestMismatch ?? report.error);
      const ended = await transitionCall(
        {
          callId,
          from: "running",
          to: status,
          where: { workerId: worker.id },
          changes: {
            result: report.result,
            exitCode: report.exitCode,
            error,
            endedAt: now,
            durationMs: report.durationMs,
            // Never cleared: the console may have dropped lines of an earlier timeline report.
            ...(report.stderrTruncated ? { stderrTruncated: true } : {}),
            leaseUntil: null,
            ...(last !== undefined ? { eventCount: last } : {}),
            ...(report.sandbox ? { sandbox: JSON.stringify(report.sandbox) } : {}),
            ...spawnColumns(report.spawned),
          },
          audit: {
            action: "call.finished",
            actor: "system",
            callId,
            details: { status, exitCode: report.exitCode, error, durationMs: report.durationMs, worker: worker.name, workerId: worker.id },
          },
        },
        tx,
      );
      // Not this worker's running call: roll back the start entry too.
      if (!ended) throw new NotOwned();
      if (report.digestMismatch !== undefined) await voidApprovalOfCall(tx, callId, report.digestMismatch);
      const kept = await storeReportedEvents(tx, callId, report.events);
      stored = kept.events;
      if (kept.dropped) ended.stderrTruncated = true;
      return ended;
    }, REPORT_ISOLATION);
  } catch (error) {
    if (error instanceof NotOwned) return refuseReport(caller, worker, callId, "finish a call");
    if (isUniqueViolation(error)) throw new AppError("conflict", `call ${callId}: a line with one of these seq numbers is already stored`);
    throw error;
  }
  publishEvents(callId, stored);
  const call = toCall(row);
  publishEnd(callId, call);
  if (report.digestMismatch !== undefined) approvalsChanged();
  return call;
}
