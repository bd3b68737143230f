import { Prisma } from "@prisma/client";
import type { CallEvent } from "@/lib/types/call";
import { statements, type SqlRunner } from "../db-statements";

/** Most events written in one INSERT (a worker's batch may hold more; it is split). */
const MAX_ROWS_PER_INSERT = 500;

/**
 * Writes timeline events of one call in multi-row INSERTs (DESIGN.md: events reach the database within
 * 1 s, batched). Prisma's createMany spent 15–20 ms on 50 rows (its query compiler runs per call), a
 * parameterised raw insert of the same rows ~1.5 ms. Timestamps are written in the text form Prisma
 * itself stores for SQLite (`2026-11-29T23:27:12.752+00:00`). A seq already stored fails the insert
 * (unique (callId, seq)): callers send each event once. `writer` may be a transaction.
 */
export async function storeEvents(callId: string, events: readonly CallEvent[], writer: Pick<SqlRunner, "$executeRaw"> = statements()): Promise<void> {
  for (let start = 0; start < events.length; start += MAX_ROWS_PER_INSERT) {
    const rows = events
      .slice(start, start + MAX_ROWS_PER_INSERT)
      .map((event) => Prisma.sql`(${callId}, ${event.seq}, ${sqliteTime(event.at)}, ${event.stream}, ${event.line})`);
    await writer.$executeRaw`INSERT INTO "CallEvent" ("callId", "seq", "at", "stream", "line") VALUES ${Prisma.join(rows)}`;
  }
}

function sqliteTime(iso: string): string {
  return new Date(iso).toISOString().replace("Z", "+00:00");
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
