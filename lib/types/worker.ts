import type { CallEvent, CallSandbox, CallStatus } from "./call";

/**
 * The wire protocol between the console and its workers (DESIGN.md "Workers and the sandbox"; every
 * request under `/api/v1/workers/…` with `Authorization: Bearer <worker token>`). Shared by the
 * console's route handlers and the worker process, which holds no database credentials.
 */

/** How a limit is enforced on a worker: by which kernel mechanism, and its value (MiB, processes, cores). */
export interface LimitEnforcement {
  by: "cgroup-v2" | "cgroup-v1" | "rlimit" | "none";
  value: number | null;
}

/** What a worker's sandbox is (SandboxHost, as reported). */
export interface WorkerSandbox {
  requested: "auto" | "bwrap" | "none";
  mode: "bwrap" | "none";
  /** Set when calls run with less isolation than DESIGN asks, or cannot run at all (`bwrap` required but missing). */
  warning: string | null;
  /** Host uid sandboxed calls run as. */
  uid: number;
  limits: { memory: LimitEnforcement; pids: LimitEnforcement; cpu: LimitEnforcement };
  /** How a call's leftover processes are found and killed. */
  kill: string;
}

/** One skill a worker holds: the digest of its copy (null when it cannot be hashed) and whether it can run there. */
export interface WorkerSkillReport {
  name: string;
  digest: string | null;
  available: boolean;
  reason: string | null;
}

/** `POST /api/v1/workers/register` body. */
export interface WorkerRegistration {
  name: string;
  labels: string[];
  host: string;
  version: string;
  pid: number | null;
  concurrency: number;
  sandbox: WorkerSandbox;
  skills: WorkerSkillReport[];
}

/** `POST /api/v1/workers/register` answer (201): the worker's session id and the timings it must keep. */
export interface WorkerSession {
  id: string;
  name: string;
  /** The token's labels and the worker's own. */
  labels: string[];
  /** Lease of a claimed call, in ms: renew every third of it (`POST …/{id}/lease`). */
  leaseMs: number;
  /** Longest a claim poll is held open, in ms. */
  pollMs: number;
  /**
   * What the console keeps on its own host that no sandbox may show (its folder, data, database,
   * roots): a worker on the same host masks these besides its own hidden paths; elsewhere they do not exist.
   */
  hiddenPaths: string[];
}

/** `POST /api/v1/workers/{id}/claim` body: how many calls the worker can start now. */
export interface ClaimRequest {
  capacity: number;
}

/** One call handed to a worker: everything it needs to check and run it on its own copy of the skill. */
export interface CallAssignment {
  callId: string;
  skill: string;
  /** The digest the worker's copy of the skill must have (for an approved call, the approved one). */
  skillDigest: string;
  /** The call's digest over {skill, skillDigest, args}: recomputed by the worker before spawning. */
  digest: string;
  /** The exact args text that was validated and hashed. */
  argsJson: string;
  /** Lease end as an ISO time: renew before it. */
  leaseUntil: string;
  /**
   * For an approved call: the canonical JSON of the skill digest's input the approvers signed for, so a
   * refusal can name what changed (`scripts/lib.sh changed`).
   */
  skillInput?: string;
  /**
   * The secrets given to the call's skill, name → value (DESIGN.md "Skill secrets"): injected into the
   * call's process as environment variables and masked in everything the worker reports of the call.
   */
  secrets: Record<string, string>;
  /** Set when the console could not open a secret of the skill (another key sealed it): the worker refuses the call with it. */
  secretsError?: string;
  /**
   * Set for an approved call when the secrets given to its skill are not those the approval recorded
   * (another value, one given or taken since): the worker refuses it, `expired`, as a digest mismatch,
   * and the console voids the approval. `secrets` is then empty.
   */
  secretsMismatch?: string;
}

/** `POST /api/v1/workers/{id}/claim` answer: calls claimed for this worker, and its calls to cancel. */
export interface ClaimResponse {
  calls: CallAssignment[];
  cancel: string[];
  /** True when the console's skills were reloaded or changed on disk: the worker should rescan and report its skills. */
  rescan: boolean;
  /**
   * With `rescan`: true after a Rescan (`POST /api/v1/loader/reload`), when the worker reads everything
   * again; false when the console's root watcher saw changes, when a worker that watches its own roots
   * reads again only what they touched.
   */
  rescanEverything?: boolean;
}

/** `POST /api/v1/workers/{id}/lease` body: the calls the worker is running. */
export interface LeaseRequest {
  running: string[];
}

/** `POST /api/v1/workers/{id}/lease` answer: which of them to cancel, and which it no longer owns (stop them). */
export interface LeaseResponse {
  cancel: string[];
  lost: string[];
}

/** Where a call's process runs: what identifies it across pid reuse. */
export interface SpawnReport {
  /** When the process was spawned (ISO time, the worker's clock): the call's `startedAt`. */
  at: string;
  pid: number;
  pgid: number;
  host: string;
  bootId: string | null;
  procStart: string | null;
}

/** `POST /api/v1/workers/{id}/calls/{callId}/events` body: timeline lines in seq order, and the spawn once. */
export interface EventsReport {
  events: CallEvent[];
  spawned?: SpawnReport;
  sandbox?: CallSandbox;
}

/** The end states a worker may report. */
export type WorkerEndStatus = Extract<CallStatus, "succeeded" | "failed" | "timed_out" | "cancelled" | "interrupted" | "expired">;

/** `POST /api/v1/workers/{id}/calls/{callId}/finish` body. */
export interface FinishReport {
  status: WorkerEndStatus;
  exitCode: number | null;
  /** The result as text: a subprocess skill's stdout verbatim (one JSON object), or `{"stdout": …}` of a script. */
  result: string | null;
  error: string | null;
  durationMs: number | null;
  stderrTruncated: boolean;
  /** The last timeline lines, not yet sent. */
  events: CallEvent[];
  /** Set when the worker refused to run the call because its copy no longer has the call's digest. */
  digestMismatch?: string;
  /** Where the process ran, when no events report carried it yet (a call that ended at once). */
  spawned?: SpawnReport;
  sandbox?: CallSandbox;
}

/** How many skills a worker holds, of which how many it cannot run and how many have drifted. */
export interface WorkerSkillCounts {
  held: number;
  unavailable: number;
  drifted: number;
}

/** A skill a worker holds, as `GET /api/v1/workers/{id}/skills` pages them. */
export interface WorkerSkillListed extends WorkerSkillReport {
  /** True when this copy has another digest than the console's own copy. */
  drifted: boolean;
}

/** `GET /api/v1/workers/{id}/skills` answer: skills by name after the `after` cursor; `next` is the cursor of the next page (null: none). */
export interface WorkerSkillPage {
  skills: WorkerSkillListed[];
  next: string | null;
}

/**
 * A worker as `GET /api/v1/workers` lists it: what it registered (its labels merged with its token's),
 * and its state. A worker may hold tens of thousands of skills, so `skills` and `drifted` hold at most
 * WORKER_LISTED_SKILLS each and `skillCounts` the totals; the whole list is paged by
 * `GET /api/v1/workers/{id}/skills`.
 */
export interface WorkerInfo extends WorkerRegistration {
  id: string;
  registeredAt: string;
  lastSeenAt: string;
  /** live: heard from within its lease; lost: silent longer; stopped: said goodbye or was cut off. */
  state: "live" | "lost" | "stopped";
  running: number;
  token: { id: string; name: string; local: boolean };
  /** The first skills: drifted ones, then unavailable ones, then the rest, by name within each. */
  skills: WorkerSkillReport[];
  skillCounts: WorkerSkillCounts;
  /** Skills whose copy here has another digest than the console's (drift), by name: the first ones. */
  drifted: string[];
}

/** Most skills, and most drifted names, one worker of `GET /api/v1/workers` carries. */
export const WORKER_LISTED_SKILLS = 50;

/** A worker token as listed (never the token itself). */
export interface WorkerTokenInfo {
  id: string;
  name: string;
  labels: string[];
  prefix: string;
  local: boolean;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Which workers hold one skill (`GET /api/v1/skills/{name}/workers`). */
export interface SkillHolders {
  /** The digest of the console's own copy (what a call made now is bound to); null when it cannot be hashed. */
  digest: string | null;
  /** Why the console's copy cannot be hashed, when it cannot. */
  digestError: string | null;
  workers: Array<{
    id: string;
    name: string;
    host: string;
    state: WorkerInfo["state"];
    digest: string | null;
    /** True when this worker's copy has another digest than the console's: it is never given this skill's calls. */
    drifted: boolean;
    available: boolean;
    reason: string | null;
  }>;
}
