import type { ProcessIdentity, ProcessOutcome, StderrTruncation } from "@/lib/server/executor";
import type { SandboxHost, SandboxLimits } from "@/lib/server/executor/sandbox/host-capabilities";
import type { SandboxRequest } from "@/lib/server/executor/sandbox/sandbox-command";

/**
 * What one call's process is, as the worker hands it to its spawner (lib/worker/spawner-process.ts):
 * a sandboxed request whose snapshot binds are paths (the spawner opens them, by descriptor, itself),
 * or, under SKILL_SANDBOX=none, the plain command pointed at the snapshot.
 */
export type SpawnCommand =
  | { kind: "sandboxed"; request: Omit<SandboxRequest, "binds">; binds: Array<{ path: string; target: string }> }
  | { kind: "plain"; command: string; args: string[]; cwd: string; env: Record<string, string> };

/** One call to start: its id (the cgroup's name), the sandbox limits, the command and the process settings of startProcess. */
export interface SpawnJob {
  callId: string;
  limits: SandboxLimits;
  command: SpawnCommand;
  process: { stdin: string; timeoutMs: number; killGraceMs: number; exitDrainMs: number; stdoutLimitBytes: number; stderrLimitBytes: number; stderrLineLimit: number };
}

/** Messages from the worker to its spawner. */
export type ToSpawner = { type: "init"; host: SandboxHost } | { type: "start"; job: SpawnJob } | { type: "cancel"; callId: string };

/** Messages from the spawner to its worker, in order per call: spawned, stderr/truncated…, ended — or refused alone. */
export type FromSpawner =
  | { type: "ready" }
  | { type: "spawned"; callId: string; pid: number; pgid: number; identity: ProcessIdentity }
  | { type: "stderr"; callId: string; lines: string[] }
  | { type: "truncated"; callId: string; kept: number; cause: StderrTruncation }
  | { type: "refused"; callId: string; reason: string }
  | { type: "ended"; callId: string; outcome: ProcessOutcome; limitHit: string | null };
