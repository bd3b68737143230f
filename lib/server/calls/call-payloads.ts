import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { Prisma } from "@prisma/client";
import { databaseProvider } from "../db";
import { statements, readNowUnlocked } from "../db-statements";
import type { StoredParts } from "../http/stored-json";
import { pieceEnd } from "../utf16-slices";

/**
 * Args, and an approval's digest input, too long to keep in their row (issue 10 point 1). SQLite
 * rewrites a whole row on every update (and reads every column before the one it needs), so 8 MB of
 * args in the Call row made each of the call's state changes — claimed, started, lease renewed,
 * finished, signed — cost tens of milliseconds of synchronous writing on the event loop. A long text
 * is written once, before its row, as CallPayload parts of PART_LENGTH (one statement each, the
 * event loop free between them); its row's column then holds IN_PARTS. Readers ask payloadText (or
 * readPayloadNow when serialising an answer), never the column alone.
 */

/** Longest text (UTF-16 code units) kept in its row; longer ones go to parts. */
export const INLINE_PAYLOAD_MAX_LENGTH = 64 * 1024;

/** Length of one part (UTF-16 code units): a few milliseconds to write. */
const PART_LENGTH = 512 * 1024;

/** What a row's column holds when its text is in parts: never valid JSON, so never a real value. */
export const IN_PARTS = "";

/** Which text of a call a payload is. */
export type PayloadKind = "args" | "digestInput";

/** Splits `text` in parts of about PART_LENGTH, never between the two halves of a surrogate pair. */
function splitParts(text: string): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start, PART_LENGTH);
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

/**
 * Stores `text` for call `callId` and returns what its row's column must hold: the text itself when
 * at most INLINE_PAYLOAD_MAX_LENGTH, else IN_PARTS after writing the parts (call dropPayloads when the
 * row is then not stored).
 */
export async function storePayload(callId: string, kind: PayloadKind, text: string): Promise<string> {
  if (text.length <= INLINE_PAYLOAD_MAX_LENGTH) return text;
  const parts = splitParts(text);
  for (const [part, chunk] of parts.entries()) {
    await statements().$executeRaw`INSERT INTO "CallPayload" ("callId", "kind", "part", "text") VALUES (${callId}, ${kind}, ${part}, ${chunk})`;
    await yieldToEventLoop();
  }
  return IN_PARTS;
}

/** Removes every part stored for call `callId` (its row was not stored, or is gone). */
export async function dropPayloads(callId: string): Promise<void> {
  await statements().$executeRaw`DELETE FROM "CallPayload" WHERE "callId" = ${callId}`;
}

/** The text of `column` (a row's value for `kind`): the column itself, or its parts when it says IN_PARTS. Throws when the parts are missing. */
export async function payloadText(callId: string, kind: PayloadKind, column: string): Promise<string> {
  if (column !== IN_PARTS) return column;
  const rows = await statements().$queryRaw<Array<{ text: string }>>`SELECT "text" FROM "CallPayload" WHERE "callId" = ${callId} AND "kind" = ${kind} ORDER BY "part"`;
  return joinParts(callId, kind, rows);
}

/** payloadText, synchronously (for an answer being serialised: lib/server/http/stored-json.ts). SQLite only: PostgreSQL has no synchronous read. */
export function readPayloadNow(callId: string, kind: PayloadKind): string {
  if (databaseProvider() === "postgresql") throw new Error(`call ${callId}: its ${kind} are stored in parts, which PostgreSQL cannot read synchronously (read them with payloadText)`);
  const rows = readNowUnlocked`SELECT "text" FROM "CallPayload" WHERE "callId" = ${callId} AND "kind" = ${kind} ORDER BY "part"` as Array<{ text: string }>;
  return joinParts(callId, kind, rows);
}

/** The rows of statement `sql`: read at once on SQLite (readNowUnlocked), as a promise on PostgreSQL. */
function readRows<T>(sql: Prisma.Sql): T[] | Promise<T[]> {
  if (databaseProvider() === "postgresql") return statements().$queryRaw<T[]>(sql);
  return readNowUnlocked(sql) as T[];
}

/** `rows` handed to `then`, at once when they are there, else when they arrive. */
function afterRows<T, R>(rows: T[] | Promise<T[]>, then: (rows: T[]) => R): R | Promise<R> {
  return Array.isArray(rows) ? then(rows) : rows.then(then);
}

/**
 * The stored text of call `callId`'s `kind` as StoredParts (lib/server/http/stored-json.ts): read whole,
 * or part by part for a streamed answer. Reading throws when the call has no such parts.
 */
export function payloadParts(callId: string, kind: PayloadKind): StoredParts {
  return {
    whole: () => readPayloadNow(callId, kind),
    part(index: number) {
      const rows = readRows<{ text: string }>(Prisma.sql`SELECT "text" FROM "CallPayload" WHERE "callId" = ${callId} AND "kind" = ${kind} AND "part" = ${index}`);
      return afterRows(rows, (found) => {
        if (found.length === 0 && index === 0) throw new Error(`call ${callId}: its ${kind} are stored in parts, and none is there`);
        return found[0]?.text ?? null;
      });
    },
  };
}

/**
 * Call `callId`'s `kind` as the JSON *string* holding that text (what a claim's `argsJson` is), as
 * StoredParts: the opening quote, each part escaped on its own (escaping is per character, and parts
 * never split a surrogate pair), the closing quote. So a claim streams megabytes of args too.
 */
export function payloadAsJsonString(callId: string, kind: PayloadKind): StoredParts {
  const parts = payloadParts(callId, kind);
  let count: number | null = null;
  const escaped = (raw: string | null, index: number): string | null | Promise<string | null> => {
    if (raw !== null) return JSON.stringify(raw).slice(1, -1);
    if (count !== null) return index - 1 === count ? '"' : null;
    const rows = readRows<{ n: number }>(Prisma.sql`SELECT count(*) AS "n" FROM "CallPayload" WHERE "callId" = ${callId} AND "kind" = ${kind}`);
    return afterRows(rows, (found) => {
      count = Number(found[0]!.n);
      return index - 1 === count ? '"' : null;
    });
  };
  return {
    whole: () => JSON.stringify(parts.whole()),
    part(index: number) {
      if (index === 0) return '"';
      const raw = parts.part(index - 1);
      return typeof raw === "string" || raw === null ? escaped(raw, index) : raw.then((text) => escaped(text, index));
    },
  };
}

function joinParts(callId: string, kind: PayloadKind, rows: Array<{ text: string }>): string {
  if (rows.length === 0) throw new Error(`call ${callId}: its ${kind} are stored in parts, and none is there`);
  return rows.map((row) => row.text).join("");
}

/** Removes parts whose call is not stored (a request that failed between writing them and its row). Returns how many. */
export async function dropOrphanPayloads(): Promise<number> {
  return statements().$executeRaw`DELETE FROM "CallPayload" WHERE "callId" NOT IN (SELECT "id" FROM "Call")`;
}
