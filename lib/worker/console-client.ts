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

  /** True when retrying the same request can succeed: the console is down, starting, busy or failed. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
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
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /**
   * One JSON request. Returns the parsed body (undefined for 204). Throws ConsoleRequestError: status 0
   * when the console cannot be reached (or the request timed out), else the console's status and code.
   */
  async request<T>(method: string, path: string, body?: unknown, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? "";
      throw new ConsoleRequestError(0, "unreachable", `the console at ${this.baseUrl} cannot be reached: ${(error as Error).message}${why ? ` (${why})` : ""}`);
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text().catch(() => "");
    let parsed: unknown = undefined;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      // A non-JSON answer (a proxy's error page) is reported by its status.
    }
    if (!response.ok) {
      const envelope = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ConsoleRequestError(response.status, envelope?.code ?? "unknown", envelope?.message ?? `${method} ${path} answered ${response.status}`);
    }
    return parsed as T;
  }

  /**
   * Sends a request until the console takes it or refuses it for good (a 4xx other than 429): what a
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

