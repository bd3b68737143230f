import { Prisma, type Call as CallRow } from "@prisma/client";
import type { CallStatus } from "@/lib/types/call";
import type { SqlRunner } from "../db-statements";

/**
 * The call path's statements as parameterised SQL, run by a SqlRunner (db-statements.ts: straight on
 * the SQLite connection, or a Prisma transaction; issue 9 point 6: the call path close to a bare
 * spawn). A model query spends ~1.3 ms of CPU in Prisma's query compiler, the same statement through
 * Prisma's `$queryRaw` ~0.5 ms, prepared on the connection ~0.03 ms, and a call makes dozens. Values go through the driver adapter
 * as parameters (dates and booleans keep Prisma's own storage format, so model queries read these rows
 * as usual), the SQL is plain and portable (`RETURNING` exists in SQLite and PostgreSQL), and column
 * names come only from the fixed list below, never from input.
 */

/** Columns of Call a statement may set or compare. */
export const CALL_COLUMNS = [
  "id",
  "skill",
  "skillKind",
  "persona",
  "requestedBy",
  "args",
  "status",
  "result",
  "exitCode",
  "error",
  "createdAt",
  "startedAt",
  "endedAt",
  "durationMs",
  "ownerId",
  "leaseUntil",
  "pgid",
  "procStart",
  "host",
  "bootId",
  "cancelRequestedAt",
  "stderrBytes",
  "stderrTruncated",
  "eventCount",
  "requesterId",
  "tokenId",
  "tokenName",
  "confirmedBy",
  "digest",
  "skillDigest",
  "target",
  "workerId",
  "workerName",
  "sandbox",
] as const;

/** A column of Call. */
export type CallColumn = (typeof CALL_COLUMNS)[number];

/** A value a Call column holds. */
export type CallValue = string | number | boolean | Date | null;

function column(name: string): Prisma.Sql {
  if (!(CALL_COLUMNS as readonly string[]).includes(name)) throw new Error(`unknown Call column ${JSON.stringify(name)}`);
  return Prisma.raw(`"${name}"`);
}

/** The columns and values of `values` that are set (undefined ones are left out). */
function entries(values: Partial<Record<CallColumn, CallValue | undefined>>): Array<[CallColumn, CallValue]> {
  return (Object.entries(values) as Array<[CallColumn, CallValue | undefined]>).filter((entry): entry is [CallColumn, CallValue] => entry[1] !== undefined);
}

/** Inserts one call row with `values` (createdAt defaults to now). Returns the stored row. */
export async function insertCallSql(runner: SqlRunner, values: Partial<Record<CallColumn, CallValue | undefined>>): Promise<CallRow> {
  const set = entries({ createdAt: new Date(), stderrBytes: 0, stderrTruncated: false, eventCount: 0, skillKind: "subprocess", ...values });
  const rows = await runner.$queryRaw<CallRow[]>`INSERT INTO "Call" (${Prisma.join(set.map(([name]) => column(name)))}) VALUES (${Prisma.join(set.map(([, value]) => value))}) RETURNING *`;
  return rows[0]!;
}

/** Conditions of an update's compare-and-set besides the id and status. */
export interface CallConditions {
  workerId?: string | null;
  leaseUntil?: Date | null;
  /** createdAt at or before this instant. */
  createdAtOrBefore?: Date;
  /** cancelRequestedAt set (true) or not (false). */
  cancelRequested?: boolean;
}

function conditions(where: CallConditions): Prisma.Sql[] {
  const parts: Prisma.Sql[] = [];
  for (const name of ["workerId", "leaseUntil"] as const) {
    const value = where[name];
    if (value === undefined) continue;
    parts.push(value === null ? Prisma.sql`${column(name)} IS NULL` : Prisma.sql`${column(name)} = ${value}`);
  }
  if (where.createdAtOrBefore) parts.push(Prisma.sql`"createdAt" <= ${where.createdAtOrBefore}`);
  if (where.cancelRequested !== undefined) parts.push(where.cancelRequested ? Prisma.sql`"cancelRequestedAt" IS NOT NULL` : Prisma.sql`"cancelRequestedAt" IS NULL`);
  return parts;
}

/**
 * The compare-and-set update of one call: sets `set` where the call has `id`, one of `statuses` and
 * `where`. Returns the changed row, or null when no row matched.
 */
export async function updateCallSql(runner: SqlRunner, id: string, statuses: readonly CallStatus[], set: Partial<Record<CallColumn, CallValue | undefined>>, where: CallConditions = {}): Promise<CallRow | null> {
  const assignments = entries(set).map(([name, value]) => Prisma.sql`${column(name)} = ${value}`);
  const filters = [Prisma.sql`"id" = ${id}`, Prisma.sql`"status" IN (${Prisma.join([...statuses])})`, ...conditions(where)];
  const rows = await runner.$queryRaw<CallRow[]>`UPDATE "Call" SET ${Prisma.join(assignments)} WHERE ${Prisma.join(filters, " AND ")} RETURNING *`;
  return rows[0] ?? null;
}

/** One call's row, or null. */
export async function selectCallSql(runner: SqlRunner, id: string): Promise<CallRow | null> {
  const rows = await runner.$queryRaw<CallRow[]>`SELECT * FROM "Call" WHERE "id" = ${id}`;
  return rows[0] ?? null;
}

/**
 * Largest args or result text, in bytes, that a listing carries inline (`GET /api/v1/calls`, the
 * approvals): 20 calls of 8 MB args made a 160 MB answer and a 200 ms synchronous read (issue 10
 * point 1), and a page of 500 could exhaust the heap. Larger ones are left out, with their size.
 */
export const LISTING_INLINE_MAX_BYTES = 64 * 1024;

/** A Call row as a listing reads it: `args`/`result` null when left out, with their stored sizes in bytes. */
export type CallSummaryRow = Omit<CallRow, "args"> & { args: string | null; argsBytes: number; resultBytes: number | null };

/** SQL for the size in bytes of the CallPayload parts of `kind` of the row's call (`"Call"."id"`, or the Approval's `"callId"`). */
export function payloadBytesSql(kind: "args" | "digestInput", callIdColumn = `"Call"."id"`): string {
  return `SELECT sum(octet_length(p."text")) FROM "CallPayload" p WHERE p."callId" = ${callIdColumn} AND p."kind" = '${kind}'`;
}

const SUMMARY_SELECT = Prisma.raw(
  [
    ...CALL_COLUMNS.filter((name) => name !== "args" && name !== "result").map((name) => `"${name}"`),
    // octet_length reads the stored size from the record header: a left-out text is never read. Args
    // in CallPayload parts (the column is "") are always left out, with the parts' size.
    `CASE WHEN octet_length("args") BETWEEN 1 AND ${LISTING_INLINE_MAX_BYTES} THEN "args" END AS "args"`,
    `CASE WHEN octet_length("args") = 0 THEN (${payloadBytesSql("args")}) ELSE octet_length("args") END AS "argsBytes"`,
    `CASE WHEN octet_length("result") <= ${LISTING_INLINE_MAX_BYTES} THEN "result" END AS "result"`,
    `octet_length("result") AS "resultBytes"`,
  ].join(", "),
);

/**
 * Calls for a listing, newest first: those matching `where` (a condition on Call's columns), at most
 * `limit`, each with its args and result only when at most LISTING_INLINE_MAX_BYTES.
 */
export async function selectCallSummariesSql(runner: SqlRunner, where: Prisma.Sql, limit: number): Promise<CallSummaryRow[]> {
  return runner.$queryRaw<CallSummaryRow[]>`SELECT ${SUMMARY_SELECT} FROM "Call" WHERE ${where} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${limit}`;
}
