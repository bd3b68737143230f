import { CALL_STATUSES, type Call, type CallStatus, type CallWithEvents } from "@/lib/types/call";
import { db } from "../db";
import { AppError } from "../errors";
import { toCall, toCallEvent } from "./call-record";

/** Filters of `GET /api/v1/calls`. `limit` defaults to 50 and is capped at 500. */
export interface CallFilter {
  skill?: string;
  status?: string;
  limit?: number;
}

/** Largest page of `GET /api/v1/calls`. */
export const MAX_CALL_PAGE = 500;

/**
 * Lists calls newest first, filtered by skill name and status. Throws AppError `bad_request` for an
 * unknown status or a limit that is not a positive integer.
 */
export async function listCalls(filter: CallFilter): Promise<Call[]> {
  if (filter.status !== undefined && !CALL_STATUSES.includes(filter.status as CallStatus)) {
    throw new AppError("bad_request", `unknown status ${JSON.stringify(filter.status)}; one of ${CALL_STATUSES.join(", ")}`);
  }
  const limit = filter.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1) throw new AppError("bad_request", "limit must be a positive integer");
  const rows = await db().call.findMany({
    where: { skill: filter.skill, status: filter.status },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(limit, MAX_CALL_PAGE),
  });
  return rows.map(toCall);
}

/** One call, or AppError `not_found`. */
export async function getCall(id: string): Promise<Call> {
  const row = await db().call.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found", `no call with id ${JSON.stringify(id)}`);
  return toCall(row);
}

/** One call with its stored timeline in seq order (`GET /api/v1/calls/{id}`), or AppError `not_found`. */
export async function getCallWithEvents(id: string): Promise<CallWithEvents> {
  const call = await getCall(id);
  const events = await db().callEvent.findMany({ where: { callId: id }, orderBy: { seq: "asc" } });
  // eventCount is stored when the call ends; while it runs, the stored timeline is the truth.
  return { ...call, eventCount: Math.max(call.eventCount, events.length), events: events.map(toCallEvent) };
}
