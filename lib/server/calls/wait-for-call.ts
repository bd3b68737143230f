import { isTerminalStatus, type Call } from "@/lib/types/call";
import { databaseProvider } from "../db";
import { statements } from "../db-statements";
import { waitForEnd } from "./call-bus";
import { toCall } from "./call-record";
import { selectCallSql } from "./call-sql";

/**
 * How often a `wait: true` request on PostgreSQL reads its call's status again, in ms: a safety net
 * (another replica's end arrives on the replicas' bus) for an end announced while the bus was down.
 */
const RECHECK_MS = 5000;

/**
 * Waits until call `id` reaches an end state (a worker finished it, it was cancelled or interrupted),
 * for `wait: true` requests. Subscribes before reading the stored status, so an end that lands in
 * between is not missed. Resolves with the Call, or null when `signal` aborts first (the client left;
 * the call goes on). Rejects with the database's error. An end another replica stores arrives on the
 * call bus (replica-bus.ts); on PostgreSQL the status is also read again every RECHECK_MS.
 */
export function waitForCallEnd(id: string, signal?: AbortSignal): Promise<Call | null> {
  return waitForEnd(id, signal, async () => {
    // The status alone first: a call just requested is still waiting, and the whole row is read only once it ended.
    const [current] = await statements().$queryRaw<Array<{ status: string }>>`SELECT "status" FROM "Call" WHERE "id" = ${id}`;
    if (!current || !isTerminalStatus(current.status as Call["status"])) return null;
    const row = await selectCallSql(statements(), id);
    return row && isTerminalStatus(row.status as Call["status"]) ? toCall(row) : null;
  }, databaseProvider() === "postgresql" ? RECHECK_MS : null);
}
