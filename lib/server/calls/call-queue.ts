import { Prisma } from "@prisma/client";
import { statements } from "../db-statements";
import { AppError } from "../errors";
import { announce, onReplicaCatchUp, onReplicaMessage } from "../replica-bus";

/**
 * The in-process signals between the calls that are queued or cancelled and the workers long-polling
 * for work (DESIGN.md "Workers and the sandbox": workers long-poll for calls). The queue itself is the
 * database (calls in `queued`); these signals only wake the waiting polls, which then claim with a
 * compare-and-set, so a lost or spurious wake-up costs latency, never correctness. With several
 * replicas on PostgreSQL each wake-up is announced to the others too (replica-bus.ts: a worker
 * long-polls whichever replica its CONSOLE_URL names), and they wake their own polls.
 */
interface QueueState {
  waiters: Set<Waiter>;
  /** Bytes of args held by queued calls, per call (reserveQueueRoom). */
  reserved: Map<string, number>;
  reservedBytes: number;
}

interface Waiter {
  workerId: string;
  wake: () => void;
}

const QUEUE_KEY = Symbol.for("skill-console.call-queue");
const state = ((globalThis as Record<symbol, QueueState | undefined>)[QUEUE_KEY] ??= { waiters: new Set(), reserved: new Map(), reservedBytes: 0 });

function wakeAll(): void {
  for (const waiter of [...state.waiters]) waiter.wake();
}

function wakeWorker(workerId: string): void {
  for (const waiter of [...state.waiters]) if (waiter.workerId === workerId) waiter.wake();
}

/** Wakes every waiting worker poll, on every replica: a call was queued (created, confirmed, approved) or a worker freed up. */
export function announceQueued(): void {
  announce({ kind: "queued" });
  wakeAll();
}

/**
 * Wakes the polls of one worker: one of its calls must be cancelled, or it must rescan its skills. On
 * every replica, unless `everywhere` is false (the caller announced what the others must do itself).
 */
export function announceToWorker(workerId: string, everywhere = true): void {
  if (everywhere) announce({ kind: "worker", workerId });
  wakeWorker(workerId);
}

onReplicaMessage("queued", () => wakeAll());
onReplicaMessage("worker", (message) => wakeWorker(message.workerId));
// Calls queued while this replica did not listen: every poll looks again.
onReplicaCatchUp("call-queue", () => wakeAll());

/**
 * Waits until a wake-up for `workerId` (announceQueued or announceToWorker), `timeoutMs` ms, or
 * `signal` aborts, whichever comes first. Register before checking the database, so a wake-up that
 * arrives while the check runs is not lost: `check` runs right after registration and ends the wait
 * at once when it returns true. Never rejects unless `check` does.
 */
export async function waitForWork(workerId: string, timeoutMs: number, signal: AbortSignal | undefined, check: () => Promise<boolean>): Promise<void> {
  let wake!: () => void;
  // Woken in a task of its own: a claim then never runs on in the request that queued the call
  // (one stretch of the event loop for both; issue 10 point 1).
  const woken = new Promise<void>((resolve) => (wake = () => void setImmediate(resolve)));
  const waiter: Waiter = { workerId, wake };
  state.waiters.add(waiter);
  const timer = setTimeout(wake, timeoutMs);
  const onAbort = () => wake();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) return;
    if (await check()) return;
    await woken;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    state.waiters.delete(waiter);
  }
}

/** What each queued call costs the queue on top of its args: bounds the number of small queued calls too. */
export const QUEUED_CALL_OVERHEAD_BYTES = 1024;

/**
 * Reserves room in the queue for a call about to be queued, whose args are `argsJson` (DESIGN.md: calls
 * beyond every worker's capacity stay `queued`; the queue is bounded). The queue holds at most
 * `budgetBytes` (8 × SKILL_ARGS_LIMIT_BYTES: eight largest calls, or thousands of small ones), each
 * call costing its args' UTF-8 bytes plus QUEUED_CALL_OVERHEAD_BYTES. The room is given back by
 * releaseQueueRoom when the call leaves `queued` (claimed, cancelled) or could not be stored; when the
 * queue looks full, the room of calls the database no longer holds `queued` is given back first (a
 * worker of another replica claimed them: on a shared PostgreSQL database, 16 calls claimed elsewhere
 * kept a replica refusing every new call until it restarted). Rejects with AppError `unavailable`
 * (503) when the queue is full; nothing must then be stored.
 */
export async function reserveQueueRoom(callId: string, argsJson: string, budgetBytes: number): Promise<void> {
  const cost = Buffer.byteLength(argsJson) + QUEUED_CALL_OVERHEAD_BYTES;
  if (state.reservedBytes + cost > budgetBytes) await releaseRoomOfCallsNotQueued();
  if (state.reservedBytes + cost > budgetBytes) {
    throw new AppError("unavailable", `too many calls are waiting for a worker (their args fill the queue's ${budgetBytes} bytes); try again later`);
  }
  state.reserved.set(callId, cost);
  state.reservedBytes += cost;
}

/** Gives back the room of every reserved call that is no longer `queued` in the database (one query). */
async function releaseRoomOfCallsNotQueued(): Promise<void> {
  const reserved = [...state.reserved.keys()];
  if (reserved.length === 0) return;
  const queued = new Set(
    (await statements().$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "Call" WHERE "status" = 'queued' AND "id" IN (${Prisma.join(reserved)})`).map((row) => row.id),
  );
  for (const id of reserved) if (!queued.has(id)) releaseQueueRoom(id);
}

/** Gives back the queue room of a call that left `queued` (idempotent; unknown ids are ignored). */
export function releaseQueueRoom(callId: string): void {
  const cost = state.reserved.get(callId);
  if (cost === undefined) return;
  state.reserved.delete(callId);
  state.reservedBytes -= cost;
}
