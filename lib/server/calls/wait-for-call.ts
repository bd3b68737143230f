import { isTerminalStatus, type Call } from "@/lib/types/call";
import { statements } from "../db-statements";
import { waitForEnd } from "./call-bus";
import { toCall } from "./call-record";
import { selectCallSql } from "./call-sql";

/**
 * Waits until call `id` reaches an end state (a worker finished it, it was cancelled or interrupted),
 * for `wait: true` requests. Subscribes before reading the stored status, so an end that lands in
 * between is not missed. Resolves with the Call, or null when `signal` aborts first (the client left;
 * the call goes on). Rejects with the database's error.
 */
export function waitForCallEnd(id: string, signal?: AbortSignal): Promise<Call | null> {
  return waitForEnd(id, signal, async () => {
    const row = await selectCallSql(statements(), id);
    return row && isTerminalStatus(row.status as Call["status"]) ? toCall(row) : null;
  });
}
