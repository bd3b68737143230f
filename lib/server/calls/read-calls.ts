import { Prisma } from "@prisma/client";
import { CALL_STATUSES, isTerminalStatus, type Call, type CallEvent, type CallStatus, type CallWithEvents } from "@/lib/types/call";
import { db } from "../db";
import { pagedList, withFields, type PagedList } from "../http/stored-json";
import { statements } from "../db-statements";
import { AppError } from "../errors";
import { toCall, toCallEvent, toListedCall } from "./call-record";
import { selectCallSql, selectCallSummariesSql } from "./call-sql";

/** Filters of `GET /api/v1/calls`. `limit` defaults to 50 and is capped at 500. */
export interface CallFilter {
  skill?: string;
  status?: string;
  limit?: number;
}

/** Largest page of `GET /api/v1/calls`. */
export const MAX_CALL_PAGE = 500;

/**
 * Lists calls newest first, filtered by skill name and status, args and results larger than
 * LISTING_INLINE_MAX_BYTES left out (Call.omitted). Throws AppError `bad_request` for an
 * unknown status or a limit that is not a positive integer.
 */
export async function listCalls(filter: CallFilter): Promise<Call[]> {
  if (filter.status !== undefined && !CALL_STATUSES.includes(filter.status as CallStatus)) {
    throw new AppError("bad_request", `unknown status ${JSON.stringify(filter.status)}; one of ${CALL_STATUSES.join(", ")}`);
  }
  const limit = filter.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1) throw new AppError("bad_request", "limit must be a positive integer");
  const where = [Prisma.sql`1 = 1`];
  if (filter.skill !== undefined) where.push(Prisma.sql`"skill" = ${filter.skill}`);
  if (filter.status !== undefined) where.push(Prisma.sql`"status" = ${filter.status}`);
  const rows = await selectCallSummariesSql(statements(), Prisma.join(where, " AND "), Math.min(limit, MAX_CALL_PAGE));
  return rows.map(toListedCall);
}

/** One call, or AppError `not_found`. */
export async function getCall(id: string): Promise<Call> {
  const row = await selectCallSql(statements(), id);
  if (!row) throw new AppError("not_found", `no call with id ${JSON.stringify(id)}`);
  return toCall(row);
}

/** Largest page of events `GET /api/v1/calls/{id}?limit=` returns, and the page the text export reads. */
export const MAX_EVENT_PAGE = 5000;

/**
 * Which stored events `GET /api/v1/calls/{id}` embeds: all of them (the default), none
 * (`events: "none"`, for a page that takes its timeline from the event stream), or a page of at most
 * `limit` (≤ MAX_EVENT_PAGE) events with seq greater than `afterSeq`.
 */
export interface CallEventsQuery {
  events?: "all" | "none";
  afterSeq?: number;
  limit?: number;
}

/** Rows of the stored timeline read per statement while an answer embeds it (each a short synchronous read). */
const EVENT_READ_ROWS = 1000;

type EventRow = { seq: number; at: Date; stream: string; line: string };

/** Up to `take` events of call `callId` with `afterSeq` < seq ≤ `upToSeq` (when given), in seq order. */
async function selectEvents(callId: string, afterSeq: number, take: number, upToSeq: number | null): Promise<CallEvent[]> {
  const rows =
    upToSeq === null
      ? await statements().$queryRaw<EventRow[]>`SELECT "seq", "at", "stream", "line" FROM "CallEvent" WHERE "callId" = ${callId} AND "seq" > ${afterSeq} ORDER BY "seq" LIMIT ${take}`
      : await statements().$queryRaw<EventRow[]>`SELECT "seq", "at", "stream", "line" FROM "CallEvent" WHERE "callId" = ${callId} AND "seq" > ${afterSeq} AND "seq" <= ${upToSeq} ORDER BY "seq" LIMIT ${take}`;
  return rows.map(toCallEvent);
}

/** A call as `GET /api/v1/calls/{id}` answers it: its stored timeline a PagedList that the answer reads as it is written. */
export type CallWithPagedEvents = Omit<CallWithEvents, "events"> & { events: PagedList<CallEvent> };

/**
 * One call with its stored timeline in seq order (`GET /api/v1/calls/{id}`), narrowed by `query`, or
 * AppError `not_found`; AppError `bad_request` for a negative `afterSeq` or a limit that is not a
 * positive integer. `eventCount` always counts the whole stored timeline. The events are a PagedList
 * (jsonResponse writes them EVENT_READ_ROWS rows per read): the first page is read here; of a call
 * still running, only the events stored by now (seq ≤ the largest now) are listed, so the list and
 * `eventCount` agree.
 */
export async function getCallWithEvents(id: string, query: CallEventsQuery = {}): Promise<CallWithPagedEvents> {
  const call = await getCall(id);
  const { afterSeq = 0, limit } = query;
  if (!Number.isInteger(afterSeq) || afterSeq < 0) throw new AppError("bad_request", "afterSeq must be a non-negative integer");
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new AppError("bad_request", "limit must be a positive integer");
  // eventCount is stored when the call ends; while it runs, the stored timeline is the truth.
  let eventCount = call.eventCount;
  let upToSeq: number | null = null;
  if (!isTerminalStatus(call.status)) {
    const [stored] = await statements().$queryRaw<Array<{ count: number; last: number | null }>>`SELECT COUNT(*) AS "count", MAX("seq") AS "last" FROM "CallEvent" WHERE "callId" = ${id}`;
    eventCount = Math.max(eventCount, Number(stored?.count ?? 0));
    upToSeq = stored?.last === null || stored?.last === undefined ? 0 : Number(stored.last);
  }
  if (query.events === "none") return withFields(call, { eventCount, events: pagedList<CallEvent>([], async () => []) });
  let left = limit === undefined ? Infinity : Math.min(limit, MAX_EVENT_PAGE);
  // A page shorter than asked was the last: the answer, streamed once its headers are sent, then asks
  // the database nothing more (a query failing mid-body — PostgreSQL restarting — cut the answer of
  // every short timeline, status 200 already sent).
  let exhausted = false;
  const readPage = async (after: number): Promise<CallEvent[]> => {
    if (left <= 0 || exhausted) return [];
    const wanted = Math.min(left, EVENT_READ_ROWS);
    const page = await selectEvents(id, after, wanted, upToSeq);
    left -= page.length;
    if (page.length < wanted) exhausted = true;
    return page;
  };
  const first = await readPage(afterSeq);
  return withFields(call, { eventCount, events: pagedList(first, (last) => readPage(last.seq)) });
}

/** Formats one event as a line of the text export: `seq<TAB>ISO time<TAB>stream<TAB>line\n`. */
export function formatTimelineTextLine(event: CallEvent): string {
  return `${event.seq}\t${event.at}\t${event.stream}\t${event.line}\n`;
}

/**
 * The stored timeline of call `id` as UTF-8 text (`GET /api/v1/calls/{id}/timeline.txt`), one
 * formatTimelineTextLine per event, read from the database in pages of MAX_EVENT_PAGE events as the
 * reader pulls (a 200,000-line timeline never sits in memory whole). AppError `not_found` (before the
 * first byte) for an unknown call.
 */
export async function openTimelineText(id: string): Promise<ReadableStream<Uint8Array>> {
  await getCall(id);
  const encoder = new TextEncoder();
  let afterSeq = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const page = await db().callEvent.findMany({
        where: { callId: id, seq: { gt: afterSeq } },
        orderBy: { seq: "asc" },
        take: MAX_EVENT_PAGE,
      });
      const last = page.at(-1);
      if (last) {
        afterSeq = last.seq;
        controller.enqueue(encoder.encode(page.map((row) => formatTimelineTextLine(toCallEvent(row))).join("")));
      }
      if (page.length < MAX_EVENT_PAGE) controller.close();
    },
  });
}
