import type { LineEdges } from "@/lib/server/executor/line-splitter";
import type { SecretMask } from "@/lib/server/secrets/secret-masking";
import type { CallEvent, CallSandbox } from "@/lib/types/call";
import type { SpawnReport } from "@/lib/types/worker";
import { MAX_EVENTS_PER_REPORT } from "@/lib/validation/worker-requests";
import { ConsoleRequestError, type ConsoleClient } from "./console-client";

/** Most lines sent in one report (the console accepts up to MAX_EVENTS_PER_REPORT, 5,000). */
const MAX_BATCH_EVENTS = MAX_EVENTS_PER_REPORT;
/** Most bytes of lines sent in one report. */
const MAX_BATCH_BYTES = 1024 * 1024;
/** How long the worker's own lines (started, …) may wait for a report, in ms (DESIGN.md: lines reach the database within 1 s). */
const SYSTEM_LINE_DELAY_MS = 100;

/**
 * The timeline of one call on its worker (DESIGN.md: workers stream timeline batches; stderr lines
 * reach the browser live and the database within 1 s): numbers lines from 1 and sends stderr lines to
 * the console as soon as no report is in flight — a line alone when lines are rare (lowest latency),
 * in batches when they come fast (one report in flight at a time, so they arrive in order); its own
 * system lines within SYSTEM_LINE_DELAY_MS. A report the console cannot take now
 * is retried (ConsoleClient.sendEvents); when the console answers that the call is no longer this
 * worker's (403/409), `onLost` is called once and nothing more is sent.
 */
export class TimelineUploader {
  private seq = 0;
  private buffer: CallEvent[] = [];
  private spawned: SpawnReport | null = null;
  private sandbox: CallSandbox | null = null;
  private inFlight: Promise<void> | null = null;
  private lost = false;
  private closed = false;

  constructor(
    private readonly client: ConsoleClient,
    private readonly workerId: string,
    private readonly callId: string,
    private readonly onLost: (reason: string) => void,
    /** Applied to every line before it is kept: masks the call's secrets (secretMasker), so no report carries a value. */
    private readonly mask: SecretMask = (line) => line,
  ) {}

  /** Number of lines appended so far (the last seq). */
  get count(): number {
    return this.seq;
  }

  /**
   * Appends one line now (`at` = now). A stderr line is sent at once (it is what people watch live); the
   * worker's own system lines and the spawn report wait up to SYSTEM_LINE_DELAY_MS for company, so a
   * call that ends sooner reports everything in its finish, one request instead of two. `edges`: where
   * the line was cut (LineEdges), so a value standing across a cut is masked on both sides.
   */
  append(stream: CallEvent["stream"], line: string, edges?: LineEdges): void {
    this.buffer.push({ seq: ++this.seq, at: new Date().toISOString(), stream, line: this.mask(line, edges) });
    if (stream === "stderr") this.kick();
    else this.kickSoon();
  }

  /** Sends where the call's process runs with the next report (within SYSTEM_LINE_DELAY_MS). */
  reportSpawn(spawned: SpawnReport): void {
    this.spawned = spawned;
    this.kickSoon();
  }

  private delayed: NodeJS.Timeout | null = null;

  private kickSoon(): void {
    this.delayed ??= setTimeout(() => {
      this.delayed = null;
      this.kick();
    }, SYSTEM_LINE_DELAY_MS);
  }

  /** Sends how the call is sandboxed with the next report. */
  reportSandbox(sandbox: CallSandbox): void {
    this.sandbox = sandbox;
  }

  /**
   * Waits for the report in flight, sends full reports while more lines are left than one report
   * holds, and returns the lines (at most MAX_EVENTS_PER_REPORT, unless the console stopped taking
   * them) and the spawn not sent yet, which the caller puts in its finish report (one request fewer at
   * the end of every call). Nothing is sent after this.
   */
  async drain(): Promise<{ events: CallEvent[]; spawned: SpawnReport | null }> {
    this.closed = true;
    if (this.delayed) clearTimeout(this.delayed);
    this.delayed = null;
    // A report in flight either lands or puts its lines back (in order) for the finish report.
    while (this.inFlight) await this.inFlight;
    // What does not fit in one finish report (a flood still buffered when the process exited) goes first,
    // in order, one full report at a time; a report the console cannot take stays for the finish.
    while (!this.lost && this.buffer.length > MAX_BATCH_EVENTS) {
      const before = this.buffer.length;
      this.inFlight = this.sendNext();
      await this.inFlight;
      this.inFlight = null;
      if (this.buffer.length >= before) break;
    }
    const rest = this.buffer;
    this.buffer = [];
    const spawned = this.spawned;
    this.spawned = null;
    return { events: rest, spawned };
  }

  private kick(): void {
    if (this.inFlight || this.lost || this.closed) return;
    if (this.buffer.length === 0 && !this.spawned) return;
    this.inFlight = this.sendNext().finally(() => {
      this.inFlight = null;
      if (this.buffer.length > 0 || this.spawned) this.kick();
    });
  }

  private async sendNext(): Promise<void> {
    // One splice, not a shift per line: a flood can leave hundreds of thousands of lines buffered.
    let count = 0;
    let bytes = 0;
    while (count < this.buffer.length && count < MAX_BATCH_EVENTS && bytes < MAX_BATCH_BYTES) bytes += this.buffer[count++]!.line.length;
    const batch = this.buffer.splice(0, count);
    const spawned = this.spawned;
    this.spawned = null;
    const report = { events: batch, ...(spawned ? { spawned } : {}), ...(this.sandbox ? { sandbox: this.sandbox } : {}) };
    try {
      await this.client.sendEvents(this.workerId, this.callId, report);
    } catch (error) {
      if (error instanceof ConsoleRequestError && (error.status === 403 || error.status === 409 || error.status === 404)) {
        this.lost = true;
        this.onLost(error.message);
        return;
      }
      // Not taken after every retry: keep the lines for the finish report, which retries again.
      this.buffer.unshift(...batch);
      if (spawned) this.spawned = spawned;
      console.error(`worker: timeline lines of call ${this.callId} not delivered yet: ${(error as Error).message}`);
    }
  }
}
