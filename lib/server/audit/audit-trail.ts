import type { AuditEntry, AuditFilters } from "@/lib/types/audit";
import { db } from "../db";
import { isDatabaseBusy, isDatabaseUnavailable } from "../db-busy";
import { statements, type SqlRunner } from "../db-statements";
import { AppError, boundedText } from "../errors";
import { webhookEventOf } from "../webhooks/webhook-events";
import { queueWebhookDeliveries } from "../webhooks/webhook-outbox";
import { maskOfAllSecrets } from "../secrets/all-secrets-mask";
import { auditWhere, toAuditEntry } from "./audit-query";

/** What one audit entry records: who (`actor`: an email, `token:<name> (<owner>)`, or `system`), what, about which call. */
export interface AuditInput {
  action: string;
  actor: string;
  actorId?: string | null;
  callId?: string | null;
  approvalId?: string | null;
  skill?: string | null;
  digest?: string | null;
  details?: Record<string, unknown>;
  /** When it happened (default: now, as it is written). */
  at?: Date;
}

/** Statements or a transaction (ours or Prisma's), so an entry can be written with the change it records. */
type Writer = Pick<SqlRunner, "$executeRaw" | "$queryRaw">;

/**
 * Appends one entry to the audit trail (issue 4, point 5: requests, confirmations, signatures,
 * denials, expiries, voids and executions, with who, what, when and the digest). Rows are never
 * changed or removed: database triggers refuse UPDATE and DELETE on the table. Pass `writer` (a
 * transaction) to write the entry atomically with the change it records. An entry that tells of a
 * webhook event (webhook-events.ts: approvals requested, decided, expired; confirmations awaited;
 * failed calls) also queues its deliveries through `writer` (DESIGN.md "Integrations").
 */
export async function recordAudit(input: AuditInput, writer: Writer = statements()): Promise<void> {
  const at = input.at ?? new Date();
  // Plain SQL: an entry is written with most of the call path's changes, and a model insert costs ~1 ms of CPU more.
  await writer.$executeRaw`INSERT INTO "AuditEvent" ("at", "action", "actor", "actorId", "callId", "approvalId", "skill", "digest", "details")
    VALUES (${at}, ${input.action}, ${input.actor}, ${input.actorId ?? null}, ${input.callId ?? null}, ${input.approvalId ?? null}, ${input.skill ?? null}, ${input.digest ?? null}, ${JSON.stringify(input.details ?? {})})`;
  // The webhooks' deliveries of what this entry tells of, queued in the same transaction (an outbox).
  const told = webhookEventOf(input, at);
  if (told) await queueWebhookDeliveries(writer, told.event, told.payload, at);
}

/** Most refusal entries kept for a busy database at once (recordRefusal); more are dropped and counted in the log. */
export const REFUSAL_BACKLOG_MAX = 10_000;

/** How often kept refusal entries are tried again while the database stays busy, in ms. */
const REFUSAL_RETRY_MS = 1000;

/** Refusal entries the busy database has not taken yet, oldest first, on globalThis (one per process, shared by the route bundles). */
const BACKLOG_KEY = Symbol.for("skill-console.refusal-backlog");
const backlog: { entries: AuditInput[]; timer: NodeJS.Timeout | null; dropped: number } = ((globalThis as Record<symbol, unknown>)[BACKLOG_KEY] ??= {
  entries: [],
  timer: null,
  dropped: 0,
}) as { entries: AuditInput[]; timer: NodeJS.Timeout | null; dropped: number };

function isBusyFailure(error: unknown): boolean {
  return isDatabaseBusy(error) || isDatabaseUnavailable(error) || (error instanceof AppError && error.code === "unavailable");
}

/**
 * Appends an entry about a refused attempt (issue 10 point 4: every refused attempt is an audit
 * entry) so that a busy database does not lose it nor turn the refusal into a 503: tries it once as
 * recordAudit does (within the statement layer's busy budget); when the database stays busy, keeps
 * the entry, stamped with the time of the refusal, and writes it in the background, tried every
 * REFUSAL_RETRY_MS, in order, until the database takes it (at most REFUSAL_BACKLOG_MAX kept, a
 * person's or token's before an anonymous one; past that, entries are dropped and counted in the log).
 * The same refusal repeated within REPEAT_WINDOW_MS is counted and written once more as a summary
 * (`repeated`, `since`); past REFUSALS_PER_SOURCE distinct ones of a source in that window, its
 * refusals are counted into one summary (`refusedMore`); text details are cut to REFUSAL_TEXT_MAX_LENGTH. Resolves once written,
 * counted or kept; rejects only for an error other than a busy database.
 */
export async function recordRefusal(input: AuditInput, options: { aboutExisting?: boolean } = {}): Promise<void> {
  const at = input.at ?? new Date();
  const entry = boundRefusal({ ...input, at });
  const key = repeatKey(entry);
  const seen = repeats.get(key);
  if (seen) {
    // The same refusal again within REPEAT_WINDOW_MS: counted, and written once as a summary (flushRepeats).
    seen.count += 1;
    seen.last = entry;
    return;
  }
  // A refusal about an approval or call that exists (a requester signing their own call) is always
  // written: its subject cannot be varied at will, and a flood of other refusals must not hide it.
  // Other distinct refusals of a source past its budget (or past the counting maps' room) are counted, not written.
  if (!options.aboutExisting && (repeats.size >= REPEAT_KEYS_MAX || !withinSourceBudget(entry))) {
    if (repeats.size >= REPEAT_KEYS_MAX) countForSummary(sourceFor(EVERYONE, entry), entry);
    return;
  }
  if (repeats.size < REPEAT_KEYS_MAX) {
    repeats.set(key, { count: 0, first: at, last: entry });
    setTimeout(() => void flushRepeats(key), REPEAT_WINDOW_MS).unref();
  }
  await writeRefusal(entry);
}

/**
 * Distinct refusals one source may have written one by one per REPEAT_WINDOW_MS: a client varying the
 * path (random ids, doubled slashes, 1,900-character ids) made each refusal "another" and grew the
 * trail 2.4 MB/s. A source is the person behind the request when one is known (their session and all
 * their tokens, from any address: 2,000 client addresses of 127.0.0.0/8 made 1,992 rows), else the
 * client address. Past it, the source's refusals are counted and written once as a summary when the
 * window ends (`refusedMore`, `since`, with the last one's details).
 */
export const REFUSALS_PER_SOURCE = 20;
/**
 * Distinct refusals of anonymous sources written one by one per REPEAT_WINDOW_MS in all, whatever
 * their addresses: a client with many addresses (an IPv6 /64, all of 127.0.0.0/8) is many sources.
 * Past it, they are counted into one summary for all (`refusedMore`, `sources`); their repeats'
 * summaries count against it too (250 addresses sending each refusal twice wrote ~280 rows a
 * window). A person's refusals have their own budget (REFUSALS_PER_SOURCE) and never wait on it:
 * an anonymous flood must not hide who was refused.
 */
export const REFUSALS_WRITTEN_PER_WINDOW = 200;
/** Most sources counted at once; past it, a new source's refusals are counted in one summary for all. */
const SOURCES_MAX = 10_000;
/** The source every refusal past the budgets is counted under. */
const EVERYONE = "*";
/** Most distinct refusals a summary describes (`samples`), each reason cut to SAMPLE_REASON_MAX_LENGTH. */
const SUMMARY_SAMPLES_MAX = 10;
const SAMPLE_REASON_MAX_LENGTH = 300;

interface CountedSource {
  written: number;
  more: number;
  first: Date;
  last: AuditInput;
  /** The sources counted here (EVERYONE's only), at most 1000. */
  others?: Set<string>;
  /** The distinct refusals counted (by action, code and reason), at most SUMMARY_SAMPLES_MAX. */
  samples: Map<string, Record<string, unknown>>;
}

const SOURCES_KEY = Symbol.for("skill-console.refusal-sources");
const sources: Map<string, CountedSource> = ((globalThis as Record<symbol, unknown>)[SOURCES_KEY] ??= new Map()) as Map<string, CountedSource>;
const WINDOW_KEY = Symbol.for("skill-console.refusal-window");
const window: { start: number; written: number } = ((globalThis as Record<symbol, unknown>)[WINDOW_KEY] ??= { start: 0, written: 0 }) as { start: number; written: number };

function sourceKey(entry: AuditInput): string {
  if (entry.actorId) return `person:${entry.actorId}`;
  if (entry.actor !== "anonymous") return `actor:${entry.actor}`;
  return `address:${String(entry.details?.address ?? "unknown")}`;
}

function isAnonymous(key: string): boolean {
  return key.startsWith("address:");
}

/** Takes one row of the anonymous window's budget; false when it is spent. */
function takeWindowRow(): boolean {
  const now = Date.now();
  if (now - window.start >= REPEAT_WINDOW_MS) {
    window.start = now;
    window.written = 0;
  }
  if (window.written >= REFUSALS_WRITTEN_PER_WINDOW) return false;
  window.written += 1;
  return true;
}

/** True when `entry`'s source may still have a refusal written this window (counts it); false when it is counted for a summary instead. */
function withinSourceBudget(entry: AuditInput): boolean {
  const own = sourceKey(entry);
  const key = sources.size < SOURCES_MAX || sources.has(own) ? own : EVERYONE;
  const source = sourceFor(key, entry);
  if (key === EVERYONE) {
    countForSummary(source, entry);
    return false;
  }
  if (source.written >= REFUSALS_PER_SOURCE) {
    countForSummary(source, entry);
    return false;
  }
  if (isAnonymous(own) && !takeWindowRow()) {
    // Within its own budget but past the anonymous window's: counted for everyone, its source named there.
    const everyone = sourceFor(EVERYONE, entry);
    countForSummary(everyone, entry);
    if ((everyone.others ??= new Set()).size < 1000) everyone.others.add(own);
    return false;
  }
  source.written += 1;
  return true;
}

/** Counts `entry` into `source`'s summary, keeping it among the samples when it is a new kind of refusal there. */
function countForSummary(source: CountedSource, entry: AuditInput): void {
  source.more += 1;
  source.last = entry;
  const details = entry.details ?? {};
  const reason = typeof details.reason === "string" ? boundedText(details.reason, SAMPLE_REASON_MAX_LENGTH) : null;
  const kind = JSON.stringify([entry.action, details.code ?? null, reason]);
  if (source.samples.has(kind) || source.samples.size >= SUMMARY_SAMPLES_MAX) return;
  source.samples.set(kind, {
    action: entry.action,
    actor: entry.actor,
    ...(details.method !== undefined ? { method: details.method } : {}),
    ...(typeof details.path === "string" ? { path: boundedText(details.path, SAMPLE_REASON_MAX_LENGTH) } : {}),
    ...(details.code !== undefined ? { code: details.code } : {}),
    ...(reason !== null ? { reason } : {}),
    ...(entry.approvalId ? { approvalId: entry.approvalId } : {}),
    ...(entry.callId ? { callId: entry.callId } : {}),
    at: (entry.at ?? new Date()).toISOString(),
  });
}

/** The counting record of source `key`, made (with its flush at the window's end) when new; `entry` becomes its last. */
function sourceFor(key: string, entry: AuditInput): CountedSource {
  let source = sources.get(key);
  if (!source) {
    source = { written: 0, more: 0, first: entry.at ?? new Date(), last: entry, samples: new Map() };
    sources.set(key, source);
    setTimeout(() => void flushSource(key), REPEAT_WINDOW_MS).unref();
  }
  return source;
}

async function flushSource(key: string): Promise<void> {
  const source = sources.get(key);
  sources.delete(key);
  if (source && source.more > 0) {
    await writeSummary(source.last, {
      refusedMore: source.more,
      since: source.first.toISOString(),
      ...(source.others ? { sources: source.others.size } : {}),
      samples: [...source.samples.values()],
    });
  }
}

/** Writes a summary entry: the last counted refusal's, with `counts` added to its details. Never throws (logs). */
async function writeSummary(last: AuditInput, counts: Record<string, unknown>): Promise<void> {
  try {
    await writeRefusal({ ...last, details: { ...last.details, ...counts } });
  } catch (error) {
    console.error("audit: a summary of refused attempts could not be written:", error);
  }
}

/** Writes one refusal entry now, or keeps it for the busy database (recordRefusal). */
async function writeRefusal(entry: AuditInput): Promise<void> {
  if (backlog.entries.length === 0) {
    try {
      await recordAudit(entry);
      return;
    } catch (error) {
      if (!isBusyFailure(error)) throw error;
    }
  }
  if (backlog.entries.length >= REFUSAL_BACKLOG_MAX && entry.actor !== "anonymous") {
    // A person's or a token's refusal goes before an anonymous one: a flood of anonymous requests must
    // not push out the record of a requester signing their own call.
    const anonymous = backlog.entries.findIndex((kept) => kept.actor === "anonymous");
    if (anonymous >= 0) {
      backlog.entries.splice(anonymous, 1);
      backlog.dropped += 1;
    }
  }
  if (backlog.entries.length >= REFUSAL_BACKLOG_MAX) {
    backlog.dropped += 1;
    if (backlog.dropped === 1 || backlog.dropped % 1000 === 0) console.error(`audit: the database stayed busy; ${backlog.dropped} refused attempts could not be kept for the audit trail`);
    return;
  }
  backlog.entries.push(entry);
  backlog.timer ??= setTimeout(writeBacklog, REFUSAL_RETRY_MS).unref();
}

/**
 * How long the same refusal (repeatKey) is counted rather than written again, in ms: a client repeating a refused request thousands of
 * times a second would otherwise grow the append-only trail by megabytes a second (and fill the busy
 * database's backlog). The first is written at once; the repeats, if any, as one entry with `repeated`
 * (how many) and `since` when the window ends.
 */
export const REPEAT_WINDOW_MS = 10_000;
/** Most distinct refusals counted at once; past it, new ones are counted in their source's summary. */
const REPEAT_KEYS_MAX = 10_000;
/** Longest reason, path or origin a refusal entry keeps, in characters. */
const REFUSAL_TEXT_MAX_LENGTH = 2000;

const REPEATS_KEY = Symbol.for("skill-console.refusal-repeats");
const repeats: Map<string, { count: number; first: Date; last: AuditInput }> = ((globalThis as Record<symbol, unknown>)[REPEATS_KEY] ??= new Map()) as Map<
  string,
  { count: number; first: Date; last: AuditInput }
>;

/**
 * What makes two refusals "the same": who, what and about which call; for `access.refused` the
 * address, method, path and code but not the reason (it quotes what the client sent — an Origin —
 * which a client can vary at will), for the others every detail (a call refused under another persona
 * is another refusal).
 */
function repeatKey(entry: AuditInput): string {
  const details = entry.details ?? {};
  const what = entry.action === "access.refused" ? [details.address ?? null, details.method ?? null, details.path ?? null, details.code ?? null] : [details];
  return JSON.stringify([entry.action, entry.actor, entry.callId ?? null, entry.approvalId ?? null, entry.skill ?? null, ...what]);
}

/** The entry with its text details (reason, path, what) cut to REFUSAL_TEXT_MAX_LENGTH. */
function boundRefusal(entry: AuditInput): AuditInput {
  if (!entry.details) return entry;
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry.details)) details[key] = typeof value === "string" ? boundedText(value, REFUSAL_TEXT_MAX_LENGTH) : value;
  return { ...entry, details };
}

async function flushRepeats(key: string): Promise<void> {
  const seen = repeats.get(key);
  repeats.delete(key);
  if (!seen || seen.count === 0) return;
  // An anonymous source's repeats summary takes a row of the anonymous window too; past it, counted for everyone.
  if (isAnonymous(sourceKey(seen.last)) && !takeWindowRow()) {
    const everyone = sourceFor(EVERYONE, seen.last);
    countForSummary(everyone, seen.last);
    everyone.more += seen.count - 1;
    return;
  }
  await writeSummary(seen.last, { repeated: seen.count, since: seen.first.toISOString() });
}

/** Writes now the summaries of every refusal and source still being counted (REPEAT_WINDOW_MS), e.g. before the console stops. */
export async function flushRefusalRepeats(): Promise<void> {
  await Promise.all([...repeats.keys()].map((key) => flushRepeats(key)));
  await Promise.all([...sources.keys()].map((key) => flushSource(key)));
}

/** Writes the kept refusal entries in order until the database is busy again (then tries later). */
async function writeBacklog(): Promise<void> {
  backlog.timer = null;
  while (backlog.entries.length > 0) {
    try {
      await recordAudit(backlog.entries[0]!);
      backlog.entries.shift();
    } catch (error) {
      if (!isBusyFailure(error)) {
        console.error("audit: a kept refused attempt could not be written:", error);
        backlog.entries.shift();
        continue;
      }
      backlog.timer = setTimeout(writeBacklog, REFUSAL_RETRY_MS).unref();
      return;
    }
  }
  if (backlog.dropped > 0) console.error(`audit: ${backlog.dropped} refused attempts were not recorded while the database was busy`);
  backlog.dropped = 0;
}

/**
 * Audit entries, newest first (`GET /api/v1/audit`): at most `limit` (1–500, default 100), only those
 * with an id below `before` when given (paging), only those `filters` keep (auditWhere: actor, skill,
 * action or action prefix, call; issue 14 point 6). Secret values are masked (maskOfAllSecrets).
 */
export async function listAudit(options: AuditFilters & { limit?: number; before?: number } = {}): Promise<AuditEntry[]> {
  const limit = Math.min(500, Math.max(1, options.limit ?? 100));
  const where = await auditWhere(options);
  if (options.before !== undefined) where.id = { lt: options.before };
  const rows = await db().auditEvent.findMany({ where, orderBy: { id: "desc" }, take: limit });
  const mask = await maskOfAllSecrets();
  return rows.map((row) => toAuditEntry(row, mask));
}
