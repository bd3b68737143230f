import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { Prisma } from "@prisma/client";
import type { CallEvent } from "@/lib/types/call";
import { statements, type SqlRunner } from "../db-statements";

/** Most events written in one INSERT (a worker's batch may hold more; it is split). */
const MAX_ROWS_PER_INSERT = 500;
/** About the most line characters written in one INSERT (a few ms of the event loop). */
const MAX_BYTES_PER_INSERT = 1024 * 1024;

/**
 * Writes timeline events of one call in multi-row INSERTs (DESIGN.md: events reach the database within
 * 1 s, batched). Prisma's createMany spent 15–20 ms on 50 rows (its query compiler runs per call), a
 * parameterised raw insert of the same rows ~1.5 ms. Timestamps are written in the text form Prisma
 * itself stores for SQLite (`2026-11-29T23:27:12.752+00:00`). A seq already stored fails the insert
 * (unique (callId, seq)): callers send each event once. `writer` may be a transaction.
 */
export async function storeEvents(callId: string, events: readonly CallEvent[], writer: Pick<SqlRunner, "$executeRaw"> = statements()): Promise<void> {
  for (let start = 0; start < events.length; ) {
    // At most MAX_ROWS_PER_INSERT rows and about MAX_BYTES_PER_INSERT of lines per statement, the event
    // loop free between statements: a worker's 5,000 lines of 3,000 characters in one go held it 72 ms.
    let end = start;
    for (let bytes = 0; end < events.length && end - start < MAX_ROWS_PER_INSERT && (end === start || bytes < MAX_BYTES_PER_INSERT); end++) bytes += events[end]!.line.length;
    const rows = events.slice(start, end).map((event) => Prisma.sql`(${callId}, ${event.seq}, ${new Date(event.at)}, ${event.stream}, ${event.line})`);
    await writer.$executeRaw`INSERT INTO "CallEvent" ("callId", "seq", "at", "stream", "line") VALUES ${Prisma.join(rows)}`;
    start = end;
    if (start < events.length) await yieldToEventLoop();
  }
}

/**
 * Appends one `system` line to a call's timeline after whatever it holds (the console's own notes:
 * interrupted, refused before it started), inside `tx`, the transaction that changes the call's
 * status. Returns the event as stored.
 */
export async function appendSystemLine(tx: SqlRunner, callId: string, line: string, at = new Date()): Promise<CallEvent> {
  const [last] = await tx.$queryRaw<Array<{ seq: number | null }>>`SELECT MAX("seq") AS "seq" FROM "CallEvent" WHERE "callId" = ${callId}`;
  const event: CallEvent = { seq: Number(last?.seq ?? 0) + 1, at: at.toISOString(), stream: "system", line };
  await storeEvents(callId, [event], tx);
  return event;
}

/**
 * Stored timeline events of `callId` with seq above `afterSeq`, in seq order, at most `limit` (one page
 * of a replay; callers page on until a short page). `at` as ISO text.
 */
export async function readStoredEvents(callId: string, afterSeq: number, limit: number): Promise<CallEvent[]> {
  const rows = await statements().$queryRaw<Array<{ seq: number; at: Date; stream: string; line: string }>>`
    SELECT "seq", "at", "stream", "line" FROM "CallEvent" WHERE "callId" = ${callId} AND "seq" > ${afterSeq} ORDER BY "seq" LIMIT ${limit}`;
  return rows.map((row) => ({ seq: Number(row.seq), at: row.at.toISOString(), stream: row.stream as CallEvent["stream"], line: row.line }));
}
