import type { Call as CallRow, CallEvent as CallEventRow } from "@prisma/client";
import type { Call, CallEvent, CallSandbox, CallStatus } from "@/lib/types/call";
import { defineStoredJson, withFields } from "../http/stored-json";
import type { CallSummaryRow } from "./call-sql";
import { IN_PARTS, payloadParts } from "./call-payloads";

/**
 * Maps a database row to the API's Call shape (DESIGN.md "Call"). `args` and `result` (JSON text
 * columns: canonical args, a result checked to be one JSON object when stored) are parsed only when
 * read, and an answer made by stringifyJson writes their stored text unparsed (issue 10 point 1:
 * megabytes of args are not parsed and serialised again for every answer that carries the call).
 */
export function toCall(row: CallRow): Call {
  const call = {
    id: row.id,
    skill: row.skill,
    persona: row.persona,
    requestedBy: row.requestedBy,
    args: {},
    status: row.status as CallStatus,
    result: null,
    exitCode: row.exitCode,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
    durationMs: row.durationMs,
    stderrTruncated: row.stderrTruncated,
    eventCount: row.eventCount,
    tokenName: row.tokenName,
    confirmedBy: row.confirmedBy,
    digest: row.digest,
    skillDigest: row.skillDigest,
    target: row.target,
    worker: row.workerName,
    sandbox: parseSandbox(row.sandbox),
  } as Call;
  defineStoredJson(call, "args", row.args === IN_PARTS ? payloadParts(row.id, "args") : row.args, {});
  defineStoredJson(call, "result", row.result, null);
  return call;
}

/**
 * Maps a listing's row (selectCallSummariesSql) to a Call like toCall, with `args` and `result` null
 * when the listing left them out for their size, and `omitted` giving those sizes in bytes.
 */
export function toListedCall(row: CallSummaryRow): Call {
  const argsOmitted = row.args === null;
  const resultOmitted = row.result === null && row.resultBytes !== null;
  const call = toCall({ ...row, args: row.args ?? "{}" } as CallRow);
  if (!argsOmitted && !resultOmitted) return call;
  if (argsOmitted) call.args = null;
  return withFields(call, { omitted: { ...(argsOmitted ? { args: row.argsBytes } : {}), ...(resultOmitted ? { result: row.resultBytes! } : {}) } });
}

function parseSandbox(text: string | null): CallSandbox | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<CallSandbox>;
    return { mode: value.mode === "bwrap" ? "bwrap" : "none", warning: typeof value.warning === "string" ? value.warning : null, limits: Array.isArray(value.limits) ? value.limits.filter((item): item is string => typeof item === "string") : [] };
  } catch {
    return null;
  }
}

/** Maps a stored timeline row to the API's event shape `{seq, at, stream, line}`. */
export function toCallEvent(row: Pick<CallEventRow, "seq" | "at" | "stream" | "line">): CallEvent {
  return { seq: row.seq, at: row.at.toISOString(), stream: row.stream as CallEvent["stream"], line: row.line };
}
