import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { config } from "./env";
import { databaseProvider, newPostgresSession, postgresPool } from "./db";

/**
 * The replicas' bus (DESIGN.md "Several replicas (PostgreSQL)"): what one console replica tells the
 * others that share its PostgreSQL database, with NOTIFY on one channel and one LISTEN session per
 * replica. Messages name things, never carry them (timeline lines are read from the table): a lost
 * message costs latency — every listener also re-reads on a slow period, and catches up after a
 * reconnect — never correctness. On SQLite (one console per file) nothing is sent.
 *
 * - `events` `{callId, seq}`: lines up to `seq` of the call are stored;
 * - `end` `{callId}`: the call reached its end state;
 * - `queued`: a call was queued (or a worker freed up): wake the workers' claim polls;
 * - `worker` `{workerId}`: wake that worker's polls (a cancel request for one of its calls);
 * - `rescan`: every live worker must rescan its skills;
 * - `reload`: a replica reloaded its loader: reload too, so every replica serves the same skills;
 * - `approvals`: what waits for a person changed (approvals/approval-feed.ts): tell the approvals streams;
 * - `access` `{userId}`: that person signed out, lost a token or changed role (auth/access-changes.ts):
 *   their open event streams identify them again;
 * - `secrets`: a skill secret was set, changed or deleted (secrets/secret-store.ts): the registry reads
 *   which skills are given which secrets again (a skill that needs one is available only once given it).
 */
export type ReplicaMessage =
  | { kind: "events"; callId: string; seq: number }
  | { kind: "end"; callId: string }
  | { kind: "queued" }
  | { kind: "worker"; workerId: string }
  | { kind: "rescan"; everything: boolean }
  | { kind: "reload" }
  | { kind: "approvals" }
  | { kind: "access"; userId: string }
  | { kind: "secrets" };

type Kind = ReplicaMessage["kind"];
type MessageOf<K extends Kind> = Extract<ReplicaMessage, { kind: K }>;
type Handler<K extends Kind> = (message: MessageOf<K>) => void | Promise<void>;
type AnyHandler = (message: ReplicaMessage) => void | Promise<void>;

/** The application_name of each replica's LISTEN session (pg_stat_activity shows it). */
export const LISTEN_APPLICATION_NAME = "skill-console replica bus";

/** The NOTIFY channel every replica LISTENs on. */
export const REPLICA_CHANNEL = "skill_console";
/** Bytes of a NOTIFY payload past which messages go in another notification (PostgreSQL's limit: 8000). */
const PAYLOAD_MAX_BYTES = 7000;
/** First and longest wait between attempts to open the LISTEN session again, in ms: a replica is deaf to the others for at most about RECONNECT_MAX_MS after PostgreSQL is back. */
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 1_000;

interface BusState {
  /** This process's name on the bus: its own notifications come back to it and are skipped. */
  replicaId: string;
  handlers: Map<Kind, AnyHandler>;
  catchUps: Map<string, () => void | Promise<void>>;
  outbox: ReplicaMessage[];
  flushScheduled: boolean;
  listener: { url: string; client: pg.Client | null; connected: boolean; stopped: boolean; attempts: number; ready: Promise<void> } | null;
  /** Messages received from other replicas (tests and the bench read it). */
  received: number;
}

const BUS_KEY = Symbol.for("skill-console.replica-bus");
const bus = ((globalThis as Record<symbol, BusState | undefined>)[BUS_KEY] ??= {
  replicaId: randomUUID(),
  handlers: new Map(),
  catchUps: new Map(),
  outbox: [],
  flushScheduled: false,
  listener: null,
  received: 0,
} as BusState);

/**
 * Registers what this replica does with `kind` messages from other replicas. One handler per kind (a
 * later registration replaces it: each Next.js route bundle evaluates the modules again, over the
 * same process-wide state).
 */
export function onReplicaMessage<K extends Kind>(kind: K, handler: Handler<K>): void {
  bus.handlers.set(kind, handler as unknown as AnyHandler);
}

/**
 * Registers `name`'s catch-up: run after this replica's LISTEN session is (re)opened, for whatever it
 * may have missed while it was not listening (open event streams read their calls again, claim polls
 * look again). One per name.
 */
export function onReplicaCatchUp(name: string, catchUp: () => void | Promise<void>): void {
  bus.catchUps.set(name, catchUp);
}

/**
 * Tells the other replicas `message` (no-op on SQLite). Sent after the caller's data is committed:
 * messages of one event-loop turn go in one statement, coalesced (one `events` per call, its largest
 * seq). Never throws: a database that is down loses the message, and the listeners' slow re-reads and
 * catch-ups cover it.
 */
export function announce(message: ReplicaMessage): void {
  if (databaseProvider() !== "postgresql") return;
  bus.outbox.push(message);
  if (bus.flushScheduled) return;
  bus.flushScheduled = true;
  setImmediate(() => void flush());
}

/** The messages of `outbox`, coalesced: one `events` per call (largest seq), one of each other kind and target. */
function coalesce(outbox: readonly ReplicaMessage[]): ReplicaMessage[] {
  const byKey = new Map<string, ReplicaMessage>();
  for (const message of outbox) {
    const key = message.kind === "events" || message.kind === "end" ? `${message.kind}:${message.callId}` : message.kind === "worker" ? `worker:${message.workerId}` : message.kind === "access" ? `access:${message.userId}` : message.kind;
    const seen = byKey.get(key);
    if (seen?.kind === "events" && message.kind === "events" && seen.seq >= message.seq) continue;
    // Deleted first, so a call's `end` stays after its `events` in the order they were announced.
    byKey.delete(key);
    byKey.set(key, message);
  }
  return [...byKey.values()];
}

/** Splits messages into NOTIFY payloads of at most PAYLOAD_MAX_BYTES: `{"from": replicaId, "messages": [...]}`. */
function payloadsOf(messages: readonly ReplicaMessage[]): string[] {
  const payloads: string[] = [];
  let batch: string[] = [];
  let bytes = 0;
  const head = `{"from":${JSON.stringify(bus.replicaId)},"messages":[`;
  for (const message of messages) {
    const text = JSON.stringify(message);
    if (batch.length > 0 && head.length + bytes + text.length + 2 > PAYLOAD_MAX_BYTES) {
      payloads.push(`${head}${batch.join(",")}]}`);
      batch = [];
      bytes = 0;
    }
    batch.push(text);
    bytes += text.length + 1;
  }
  if (batch.length > 0) payloads.push(`${head}${batch.join(",")}]}`);
  return payloads;
}

async function flush(): Promise<void> {
  bus.flushScheduled = false;
  const messages = coalesce(bus.outbox.splice(0));
  if (messages.length === 0) return;
  const payloads = payloadsOf(messages);
  const sql = `SELECT ${payloads.map((_, index) => `pg_notify($1, $${index + 2})`).join(", ")}`;
  try {
    // The LISTEN session sends when it is open (it is idle between notifications): no pool
    // connection is taken from the requests for it.
    const listener = bus.listener;
    const via = listener?.connected && listener.client && listener.url === config().databaseUrl ? listener.client : postgresPool();
    await via.query(sql, [REPLICA_CHANNEL, ...payloads]);
  } catch (error) {
    console.error(`replica bus: announcing ${messages.length} message(s) failed: ${(error as Error).message}`);
  }
}

/** Runs the handler of each message from another replica; a failing handler is logged. */
function receive(payload: string | undefined): void {
  let parsed: { from?: unknown; messages?: unknown };
  try {
    parsed = JSON.parse(payload ?? "") as typeof parsed;
  } catch {
    return;
  }
  if (parsed.from === bus.replicaId || !Array.isArray(parsed.messages)) return;
  for (const message of parsed.messages as ReplicaMessage[]) {
    const handler = bus.handlers.get(message?.kind);
    if (!handler) continue;
    bus.received += 1;
    Promise.resolve()
      .then(() => handler(message))
      .catch((error: unknown) => console.error(`replica bus: handling ${message.kind} failed:`, error));
  }
}

function runCatchUps(): void {
  for (const [name, catchUp] of bus.catchUps) {
    Promise.resolve()
      .then(catchUp)
      .catch((error: unknown) => console.error(`replica bus: catching up ${name} failed:`, error));
  }
}

/**
 * Opens this replica's LISTEN session on config().databaseUrl (PostgreSQL only; no-op on SQLite or
 * when it is already open on that URL) and keeps it open: when it fails (the server restarted, the
 * network dropped) it is opened again, RECONNECT_MIN_MS then doubling up to RECONNECT_MAX_MS (1 s) between
 * attempts, and every catch-up runs once it listens again. Resolves once it listens, or after
 * `waitMs` whatever happened (the console serves meanwhile; the re-reads cover the gap). Never rejects.
 */
export async function startReplicaBus(waitMs = 5_000): Promise<void> {
  if (databaseProvider() !== "postgresql") return;
  const url = config().databaseUrl;
  if (bus.listener && !bus.listener.stopped && bus.listener.url === url) return settleWithin(bus.listener.ready, waitMs);
  if (bus.listener) await stopReplicaBus();
  let listened!: () => void;
  const listener: NonNullable<BusState["listener"]> = { url, client: null, connected: false, stopped: false, attempts: 0, ready: new Promise<void>((resolve) => (listened = resolve)) };
  bus.listener = listener;
  const connect = async (): Promise<void> => {
    if (listener.stopped) return;
    const client = newPostgresSession(LISTEN_APPLICATION_NAME);
    listener.client = client;
    let failed = false;
    const fail = (error: Error | null) => {
      if (failed) return;
      failed = true;
      listener.connected = false;
      client.removeAllListeners("notification");
      void client.end().catch(() => undefined);
      if (listener.stopped) return;
      if (error) console.error(`replica bus: the LISTEN session failed (${error.message}); opening it again`);
      const wait = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** Math.min(listener.attempts, 8));
      listener.attempts += 1;
      setTimeout(() => void connect(), wait).unref();
    };
    client.on("error", (error) => fail(error));
    client.on("end", () => fail(new Error("the server closed it")));
    client.on("notification", (notification) => {
      if (notification.channel === REPLICA_CHANNEL) receive(notification.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${REPLICA_CHANNEL}`);
    } catch (error) {
      return fail(error as Error);
    }
    if (listener.stopped) return void client.end().catch(() => undefined);
    const reopened = listener.attempts > 0;
    listener.connected = true;
    listener.attempts = 0;
    listened();
    // Whatever was announced while this replica did not listen is read from the tables.
    if (reopened) runCatchUps();
  };
  void connect();
  return settleWithin(listener.ready, waitMs);
}

function settleWithin(ready: Promise<void>, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    timer.unref();
    void ready.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Closes the LISTEN session for good (shutdown, tests switching databases). Idempotent. */
export async function stopReplicaBus(): Promise<void> {
  const listener = bus.listener;
  bus.listener = null;
  if (!listener) return;
  listener.stopped = true;
  listener.connected = false;
  await listener.client?.end().catch(() => undefined);
}

/** What tests read of the bus: whether this replica listens now, and how many messages of other replicas it handled. */
export function replicaBusStatus(): { listening: boolean; received: number; replicaId: string } {
  return { listening: bus.listener?.connected === true, received: bus.received, replicaId: bus.replicaId };
}
