import type { Call as CallRow, CallEvent as CallEventRow } from "@prisma/client";
import type { Call, CallEvent, CallSandbox, CallStatus } from "@/lib/types/call";

function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Maps a database row to the API's Call shape (DESIGN.md "Call"); JSON text columns are parsed. */
export function toCall(row: CallRow): Call {
  return {
    id: row.id,
    skill: row.skill,
    persona: row.persona,
    requestedBy: row.requestedBy,
    args: parseObject(row.args) ?? {},
    status: row.status as CallStatus,
    result: parseObject(row.result),
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
  };
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
