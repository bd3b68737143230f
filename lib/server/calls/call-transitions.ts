import type { Call as CallRow, Prisma } from "@prisma/client";
import { statementTransaction, type SqlRunner } from "../db-statements";
import type { CallStatus } from "@/lib/types/call";
import { recordAudit, type AuditInput } from "../audit/audit-trail";
import { modelTransaction } from "../db-transactions";
import { insertCallSql, updateCallSql, type CallColumn, type CallConditions, type CallValue } from "./call-sql";

/**
 * Every status change a call may make (DESIGN.md "Call" statuses; issue 9 point 5: one owner for the
 * call lifecycle). A call is born `queued`, `awaiting_confirmation` or `awaiting_approval`; a person's
 * confirmation or the second signature queues it; a worker's claim runs it; the end states are final.
 */
export const CALL_TRANSITIONS: Readonly<Record<CallStatus, readonly CallStatus[]>> = {
  awaiting_confirmation: ["queued", "cancelled", "denied", "expired"],
  awaiting_approval: ["queued", "cancelled", "denied", "expired"],
  queued: ["running", "cancelled", "expired", "failed", "interrupted"],
  running: ["succeeded", "failed", "timed_out", "cancelled", "expired", "interrupted"],
  succeeded: [],
  failed: [],
  timed_out: [],
  cancelled: [],
  denied: [],
  expired: [],
  interrupted: [],
};

/** The statuses a call may be created with. */
export const INITIAL_CALL_STATUSES: readonly CallStatus[] = ["queued", "awaiting_confirmation", "awaiting_approval"];

/** True when the table allows `from` → `to`. Pure. */
export function canTransition(from: CallStatus, to: CallStatus): boolean {
  return CALL_TRANSITIONS[from].includes(to);
}

/** What a transition runs in: a statementTransaction's `tx` or a Prisma interactive transaction. */
export type CallWriter = SqlRunner;

/** The columns a transition may set besides `status`. */
export type CallChanges = Partial<Record<Exclude<CallColumn, "status" | "id">, CallValue | undefined>>;

/** One requested status change. */
export interface CallTransition {
  callId: string;
  /** The status (or any of the statuses) the call must be in: the compare-and-set. */
  from: CallStatus | readonly CallStatus[];
  to: CallStatus;
  /** Further conditions of the compare-and-set, e.g. `{ workerId }`: only the claiming worker may end it. */
  where?: CallConditions;
  changes?: CallChanges;
  /**
   * The audit entry of this change, written in the same transaction; a function gets the changed row
   * (its skill and digest default to the row's). Null only when the caller writes the entry that
   * records it in the same transaction `tx` (an approval's own `approval.denied`).
   */
  audit: AuditInput | ((row: CallRow) => AuditInput) | null;
}

/** Error for a transition the table does not allow: a programming error, never a race. */
export class IllegalTransitionError extends Error {}

/**
 * Applies one status change of a call (the only way a call's status changes): checks it against
 * CALL_TRANSITIONS (IllegalTransitionError otherwise), then compare-and-sets the row from `from` (and
 * `where`) to `to` with `changes` and writes `audit`, in one transaction — `tx` when given (the
 * caller's, e.g. an approval changing with its call), else its own. Returns the row as changed, or null
 * when the call was not in `from` any more (another request, worker or console changed it first).
 */
export async function transitionCall(change: CallTransition, tx?: CallWriter): Promise<CallRow | null> {
  const from = typeof change.from === "string" ? [change.from] : [...change.from];
  for (const status of from) {
    if (!canTransition(status, change.to)) throw new IllegalTransitionError(`a call may not go from ${status} to ${change.to}`);
  }
  if (change.audit === null && !tx) throw new IllegalTransitionError("a transition without its own audit entry must run in the caller's transaction");
  const apply = async (writer: CallWriter): Promise<CallRow | null> => {
    const row = await updateCallSql(writer, change.callId, from, { ...(change.changes ?? {}), status: change.to }, change.where);
    if (!row) return null;
    if (change.audit) {
      const entry = typeof change.audit === "function" ? change.audit(row) : change.audit;
      await recordAudit({ ...entry, callId: entry.callId ?? row.id, skill: entry.skill ?? row.skill, digest: entry.digest ?? row.digest }, writer);
    }
    return row;
  };
  if (tx) return apply(tx);
  return statementTransaction(apply);
}

/** A new call row, everything but its status. */
export type NewCallRow = Partial<Record<Exclude<CallColumn, "status">, CallValue | undefined>> & { id: string; skill: string; requestedBy: string; args: string };

/**
 * Stores a new call in one of INITIAL_CALL_STATUSES with its audit entries (`call.requested`, and an
 * approval's own entries when the caller adds them through `also`), in one transaction. `also` runs in
 * the same transaction after the insert (e.g. creating the call's Approval). Returns the stored row.
 */
export async function insertCall(
  row: NewCallRow,
  status: CallStatus,
  audit: readonly AuditInput[],
  also?: (tx: Prisma.TransactionClient) => Promise<void>,
): Promise<CallRow> {
  if (!INITIAL_CALL_STATUSES.includes(status)) throw new IllegalTransitionError(`a call may not be created ${status}`);
  const store = async <Tx extends SqlRunner>(tx: Tx, then?: (tx: Tx) => Promise<void>) => {
    const created = await insertCallSql(tx, { ...row, status });
    if (then) await then(tx);
    for (const entry of audit) await recordAudit(entry, tx);
    return created;
  };
  // `also` writes through Prisma's models (an approval): then the whole insert is Prisma's transaction.
  if (!also) return statementTransaction((tx) => store(tx));
  return modelTransaction((tx) => store(tx, also));
}
