import http from "node:http";
import https from "node:https";
import { setTimeout as delay } from "node:timers/promises";
import type {
  ClaimResponse,
  EventsReport,
  FinishReport,
  LeaseResponse,
  WorkerRegistration,
  WorkerSession,
  WorkerSkillReport,
} from "@/lib/types/worker";

/** An answer of the console other than 2xx: its status and the error envelope's code and message. */
export class ConsoleRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ConsoleRequestError";
  }

  /** True when retrying the same request can succeed: the console is down, starting, busy or failed, or the body was cut off on the way (408). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/** How long one request may take before it is abandoned and retried, in ms (the claim poll has its own). */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The worker's side of the worker protocol (DESIGN.md "Workers and the sandbox": workers talk to the
 * console over HTTP only, with their worker token; they never hold database credentials). Each method
 * is one request under `/api/v1/workers/…`; `sendReliably` retries what must not be lost.
 */
export class ConsoleClient {
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;

  /** `baseUrl`: the console's http(s) URL (CONSOLE_URL); `token`: the worker token sent with every request. */
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {
    this.transport = new URL(baseUrl).protocol === "https:" ? https : http;
    // Kept-alive connections: the claim poll, timeline reports and lease renewals reuse them.
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: 256 });
  }

  /** Closes the client's idle connections (the worker stops). */
  close(): void {
    this.agent.destroy();
  }

  /**
   * One JSON request. Returns the parsed body (undefined for 204). Throws ConsoleRequestError: status 0
   * when the console cannot be reached (or the request timed out), else the console's status and code.
   */
  async request<T>(method: string, path: string, body?: unknown, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let answer: { status: number; text: string };
    try {
      answer = await this.send(method, path, payload, options.signal, options.timeoutMs ?? REQUEST_TIMEOUT_MS);
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new ConsoleRequestError(0, "unreachable", `the console at ${this.baseUrl} cannot be reached: ${(error as Error).message}${code && !(error as Error).message.includes(code) ? ` (${code})` : ""}`);
    }
    if (answer.status === 204) return undefined as T;
    let parsed: unknown = undefined;
    try {
      parsed = answer.text === "" ? undefined : JSON.parse(answer.text);
    } catch {
      // A non-JSON answer (a proxy's error page) is reported by its status.
    }
    if (answer.status < 200 || answer.status >= 300) {
      const envelope = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ConsoleRequestError(answer.status, envelope?.code ?? "unknown", envelope?.message ?? `${method} ${path} answered ${answer.status}`);
    }
    return parsed as T;
  }

  /**
   * One HTTP exchange over the client's keep-alive connections (node:http rather than fetch: a third
   * of the CPU per request, and a worker makes several per call). A request that fails because the
   * console had just closed the idle connection it was written on is sent once more on a new one —
   * the console never read it (Node.js's documented pattern, `request.reusedSocket`). Resolves with
   * the status and body text; rejects with the socket's error, or "timed out after N ms", or "aborted".
   */
  private send(method: string, path: string, payload: string | undefined, signal: AbortSignal | undefined, timeoutMs: number, retried = false): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new Error("aborted"));
      const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${this.token}` };
      if (payload !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = Buffer.byteLength(payload);
      }
      const request = this.transport.request(new URL(`${this.baseUrl}${path}`), { method, headers, agent: this.agent });
      let settled = false;
      const finish = (error: Error | null, answer?: { status: number; text: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (error) reject(error);
        else resolve(answer!);
      };
      const onAbort = () => {
        request.destroy();
        finish(new Error("aborted"));
      };
      const timer = setTimeout(() => {
        request.destroy();
        finish(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      request.on("response", (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => finish(null, { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", (error) => finish(error));
      });
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (!settled && request.reusedSocket && !retried && (error.code === "ECONNRESET" || error.code === "EPIPE")) {
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          this.send(method, path, payload, signal, timeoutMs, true).then(resolve, reject);
          return;
        }
        finish(error);
      });
      request.end(payload);
    });
  }

  /**
   * Sends a request until the console takes it or refuses it for good (a 4xx other than 408 and 429): what a
   * worker reports about a call it ran must not be lost to a console restart or a busy database
   * (DESIGN.md: a crashed or killed child leaves a finished call record). Retries with backoff from
   * 100 ms up to 5 s, for at most `giveUpAfterMs` (default one lease is not enough: 10 minutes), or
   * until `signal` aborts. Throws the last ConsoleRequestError.
   */
  async sendReliably<T>(method: string, path: string, body: unknown, options: { signal?: AbortSignal; giveUpAfterMs?: number } = {}): Promise<T> {
    const giveUpAt = Date.now() + (options.giveUpAfterMs ?? 600_000);
    let wait = 100;
    for (;;) {
      try {
        return await this.request<T>(method, path, body, { signal: options.signal });
      } catch (error) {
        if (!(error instanceof ConsoleRequestError) || !error.retryable || Date.now() + wait > giveUpAt || options.signal?.aborted) throw error;
      }
      await delay(wait, undefined, { signal: options.signal }).catch(() => undefined);
      wait = Math.min(wait * 2, 5_000);
    }
  }

  /** `POST /api/v1/workers/register`: a new worker session. */
  register(registration: WorkerRegistration): Promise<WorkerSession> {
    return this.request<{ worker: WorkerSession }>("POST", "/api/v1/workers/register", registration).then((answer) => answer.worker);
  }

  /** `POST /api/v1/workers/{id}/skills`: the skills this worker holds now. */
  reportSkills(workerId: string, skills: WorkerSkillReport[]): Promise<void> {
    return this.sendReliably<void>("POST", `/api/v1/workers/${workerId}/skills`, { skills }, { giveUpAfterMs: 60_000 });
  }

  /** `POST /api/v1/workers/{id}/claim`: waits (long poll) for calls to run, cancels and rescans. */
  claim(workerId: string, capacity: number, pollMs: number, signal: AbortSignal): Promise<ClaimResponse> {
    return this.request<ClaimResponse>("POST", `/api/v1/workers/${workerId}/claim`, { capacity }, { signal, timeoutMs: pollMs + 15_000 });
  }

  /** `POST /api/v1/workers/{id}/lease`: renews the leases of the calls this worker runs. */
  renewLeases(workerId: string, running: string[]): Promise<LeaseResponse> {
    return this.request<LeaseResponse>("POST", `/api/v1/workers/${workerId}/lease`, { running });
  }

  /** `POST /api/v1/workers/{id}/calls/{callId}/events`: timeline lines, retried until taken. */
  sendEvents(workerId: string, callId: string, report: EventsReport, signal?: AbortSignal): Promise<void> {
    return this.sendReliably<void>("POST", `/api/v1/workers/${workerId}/calls/${callId}/events`, report, { signal });
  }

  /** `POST /api/v1/workers/{id}/calls/{callId}/finish`: the end of a call, retried until taken. */
  finish(workerId: string, callId: string, report: FinishReport): Promise<void> {
    return this.sendReliably<void>("POST", `/api/v1/workers/${workerId}/calls/${callId}/finish`, report);
  }

  /** `DELETE /api/v1/workers/{id}`: this worker session ends. */
  goodbye(workerId: string): Promise<void> {
    return this.request<void>("DELETE", `/api/v1/workers/${workerId}`, undefined, { timeoutMs: 5_000 });
  }
}

