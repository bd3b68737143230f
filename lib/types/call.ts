/** Every status a call can have (DESIGN.md "Call"). */
export const CALL_STATUSES = [
  "queued",
  "running",
  "succeeded",
  "failed",
  "timed_out",
  "cancelled",
  "awaiting_confirmation",
  "awaiting_approval",
  "denied",
  "expired",
  "interrupted",
] as const;

/** A call's status. */
export type CallStatus = (typeof CALL_STATUSES)[number];

/** Statuses after which nothing more happens to a call. */
export const TERMINAL_CALL_STATUSES: readonly CallStatus[] = [
  "succeeded",
  "failed",
  "timed_out",
  "cancelled",
  "denied",
  "expired",
  "interrupted",
];

/** True when `status` is an end state. */
export function isTerminalStatus(status: CallStatus): boolean {
  return TERMINAL_CALL_STATUSES.includes(status);
}

/** One line of a call's timeline: `seq` counts from 1, `at` is an ISO-8601 timestamp. */
export interface CallEvent {
  seq: number;
  at: string;
  stream: "stderr" | "system";
  line: string;
}

/**
 * A call as served by the API (DESIGN.md "Call"). Times are ISO-8601 strings, `durationMs` in
 * milliseconds from spawn to the end of the process group.
 */
export interface Call {
  id: string;
  skill: string;
  persona: string | null;
  requestedBy: string;
  /** The args object; null only in a listing that left it out for its size (then `omitted` names it). */
  args: Record<string, unknown> | null;
  status: CallStatus;
  result: Record<string, unknown> | null;
  exitCode: number | null;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  stderrTruncated: boolean;
  eventCount: number;
  /** The API token an agent's call came through (null for a person in the console). */
  tokenName: string | null;
  /** Who confirmed a mutating call (null when it needed none or is not confirmed yet). */
  confirmedBy: string | null;
  /** SHA-256 (hex) of what the call runs (see Approval.digest); null for calls older than issue 4. */
  digest: string | null;
  /** The digest of the skill the call is bound to: only a worker holding this copy may run it. */
  skillDigest: string | null;
  /** The worker name or label the call asked for; null = any eligible worker. */
  target: string | null;
  /** The name of the worker that claimed the call; null until one did. */
  worker: string | null;
  /** How the call was sandboxed, once a worker ran it; null before. */
  sandbox: CallSandbox | null;
  /**
   * Listings only (`GET /api/v1/calls`, `GET /api/v1/approvals`): the fields left out (null) because
   * their stored text is larger than LISTING_INLINE_MAX_BYTES, with their sizes in bytes; fetch the
   * call (`GET /api/v1/calls/{id}`) for them. Absent when nothing was left out.
   */
  omitted?: { args?: number; result?: number };
}

/** How one call was sandboxed on its worker (DESIGN.md "Workers and the sandbox"). */
export interface CallSandbox {
  /** `bwrap`, or `none` when it ran unsandboxed. */
  mode: "bwrap" | "none";
  /** Set when the call ran with less isolation than DESIGN asks (SKILL_SANDBOX=none, no bwrap, limits not enforced). */
  warning: string | null;
  /** Which limits were enforced and how, e.g. `memory 1024 MiB (cgroup-v1)`. */
  limits: string[];
}

/** A call with its whole timeline (`GET /api/v1/calls/{id}`). */
export interface CallWithEvents extends Call {
  events: CallEvent[];
}
