import { closeSync } from "node:fs";
import path from "node:path";
import type { CallSandbox } from "@/lib/types/call";
import type { CallAssignment, FinishReport, WorkerEndStatus } from "@/lib/types/worker";
import type { WorkerConfig } from "@/lib/server/env";
import { SCRIPT_SYSTEM_PATH } from "@/lib/server/env";
import { interpretScriptOutcome, interpretSubprocessOutcome, launchProcess, type ChildLauncher, type ProcessOutcome, type RunningProcess } from "@/lib/server/executor";
import { CallCgroup } from "@/lib/server/executor/sandbox/call-cgroup";
import { openBindFd } from "@/lib/server/executor/sandbox/bind-fd";
import { buildSandboxedCommand, type SandboxRequest } from "@/lib/server/executor/sandbox/sandbox-command";
import { sandboxUnusableReason, type SandboxHost } from "@/lib/server/executor/sandbox/sandbox-host";
import { planCall, PlanError, type CallPlan } from "@/lib/server/skills/call-plan";
import { maskJsonValue, SECRET_MASK, secretMasker, type SecretMask } from "@/lib/server/secrets/secret-masking";
import { childEnvironment } from "@/lib/server/skills/child-environment";
import { missingSecretsReason } from "@/lib/server/skills/secret-grants";
import { digestMismatchReason } from "@/lib/server/skills/skill-digest";
import type { RegisteredSkill } from "@/lib/server/skills/registered-skill";
import { sandboxAllowedRoots } from "@/lib/server/skills/sandbox-allowance";
import { materializeSnapshot, type SkillSnapshot } from "@/lib/server/skills/skill-snapshot";
import type { ConsoleClient } from "./console-client";
import { forgetRunningRecord, writeRunningRecord } from "./running-records";
import { TimelineUploader } from "./timeline-uploader";

/** The private home of a sandboxed call (a tmpfs). */
export const SANDBOX_HOME = "/home/skill";

/** What the worker keeps about one call it runs. */
export interface RunningCall {
  callId: string;
  skillDigest: string;
  process: RunningProcess | null;
  /** Set once someone asked to cancel (or the worker stops): the call ends `cancelled` / `interrupted`. */
  stopReason: { status: "cancelled" | "interrupted"; message: string } | null;
  /** Set when the console says the call is no longer this worker's: nothing is reported any more. */
  lost: boolean;
  /** Resolves once the call's process is in its cgroups (CallCgroup.joined), or it never started; never rejects. */
  joined: Promise<void>;
  /**
   * Resolves once nothing of the call runs any more: its process group is gone (or it never started).
   * Its slot of WORKER_CONCURRENCY is free from then on, while its end is still being reported and
   * its cgroup removed; never rejects.
   */
  settled: Promise<void>;
  done: Promise<void>;
}

/** Longest a worker with nothing else running waits for a new call's cgroup joins before polling the console again, in ms. */
export const JOIN_WAIT_MS = 25;

/** What a worker run needs around one call. */
export interface RunContext {
  config: WorkerConfig;
  host: SandboxHost;
  client: ConsoleClient;
  /** Forks the call's process (the worker's ProcessLauncher: the worker itself never forks). */
  launcher: ChildLauncher;
  workerId: string;
  /** The worker's current catalog lookup (it may be rescanned while calls run). */
  skill: (name: string) => RegisteredSkill | undefined;
  /** Called when the worker's copy of a skill turned out not to match: the worker rescans and reports. */
  onDrift: (skill: string) => void;
  /** Paths every sandbox masks (the worker's and the console's hidden paths). */
  hiddenPaths: readonly string[];
  /** Why this worker cannot run calls at all now (its snapshot store is unreachable), or null. */
  unusable: () => string | null;
}

/**
 * Runs one call the console handed this worker (DESIGN.md "Workers and the sandbox"), start to finish:
 * re-plans it on the worker's own copy of the skill with every byte kept (planCall), refuses it when
 * that copy's skill digest or the call's digest is not the assigned one (the call ends `expired` with
 * the reason and its approval is voided by the console), writes or reuses the content-addressed
 * read-only snapshot of exactly those bytes, and spawns the call from the snapshot — bound at the
 * skill's own path inside a bubblewrap sandbox with its declared access, in a per-call cgroup with the
 * memory, pids and CPU limits (or unsandboxed, with the warning, under SKILL_SANDBOX=none) — never from
 * the live folder. Streams the timeline, then reports the end state, retried until the console takes
 * it. Returns the RunningCall at once; `joined` resolves once its process is in its cgroups (or it
 * never started), `done` when everything is reported.
 */
export function runAssignment(context: RunContext, assignment: CallAssignment): RunningCall {
  let markJoined = () => {};
  let markSettled = () => {};
  const running: RunningCall = {
    callId: assignment.callId,
    skillDigest: assignment.skillDigest,
    process: null,
    stopReason: null,
    lost: false,
    joined: new Promise<void>((resolve) => (markJoined = resolve)),
    settled: new Promise<void>((resolve) => (markSettled = resolve)),
    done: Promise.resolve(),
  };
  running.done = execute(context, assignment, running, { onSpawned: (joined) => void joined.then(markJoined), onSettled: markSettled })
    .catch((error: unknown) => {
      console.error(`worker: call ${assignment.callId} failed unexpectedly:`, error);
    })
    .finally(() => {
      markJoined();
      markSettled();
    });
  return running;
}

/** Asks a running call to stop: cancelled on request, or interrupted because the worker stops. */
export function stopCall(running: RunningCall, status: "cancelled" | "interrupted", message: string): void {
  running.stopReason ??= { status, message };
  running.process?.cancel();
}

async function execute(
  context: RunContext,
  assignment: CallAssignment,
  running: RunningCall,
  { onSpawned, onSettled }: { onSpawned: (joined: Promise<void>) => void; onSettled: () => void },
): Promise<void> {
  const { config, host, client, workerId } = context;
  const secrets = assignment.secrets ?? {};
  // Every line, the stdout (before the result and any error quoting it are made of it) and the error
  // are masked here, before they leave the worker (DESIGN.md "Skill secrets").
  let mask: SecretMask;
  let maskProblem: string | null = null;
  try {
    mask = secretMasker(Object.values(secrets));
  } catch {
    // Fail closed, and never log the error: its message may quote a value.
    mask = () => SECRET_MASK;
    maskProblem = "the call's secrets could not be prepared for masking; nothing was run";
  }
  const timeline = new TimelineUploader(
    client,
    workerId,
    assignment.callId,
    (reason) => {
      running.lost = true;
      console.error(`worker: call ${assignment.callId} is no longer ours (${reason}); stopping it`);
      running.process?.cancel();
    },
    mask,
  );
  const finish = async (report: Omit<FinishReport, "events" | "stderrTruncated"> & { stderrTruncated?: boolean }): Promise<void> => {
    const { events, spawned } = await timeline.drain();
    if (running.lost) return;
    const masked = maskProblem === null && Object.keys(secrets).length === 0 ? report : { ...report, result: maskedResult(report.result, mask), error: report.error === null ? null : mask(report.error) };
    // (The result is masked again after parsing it: maskedResult.)
    try {
      await client.finish(workerId, assignment.callId, { stderrTruncated: false, ...masked, events, ...(spawned ? { spawned } : {}) });
    } catch (error) {
      console.error(`worker: the end of call ${assignment.callId} was not accepted: ${(error as Error).message}`);
    }
  };
  const refuse = (status: WorkerEndStatus, reason: string, mismatch = false) => {
    timeline.append("system", `not started: ${reason}`);
    return finish({ status, exitCode: null, result: null, error: reason, durationMs: null, ...(mismatch ? { digestMismatch: reason } : {}) });
  };

  const skill = context.skill(assignment.skill);
  if (!skill) return refuse("failed", `worker ${config.name} holds no skill ${assignment.skill} any more`);
  let plan: CallPlan;
  try {
    plan = await planCall(skill, assignment.argsJson, { scriptInterpreters: config.scriptInterpreters, systemPath: SCRIPT_SYSTEM_PATH, limits: config.skillFolderLimits, keepBytes: true });
  } catch (error) {
    if (!(error instanceof PlanError)) throw error;
    context.onDrift(skill.name);
    return refuse("expired", `what the call would run cannot be checked on worker ${config.name}: ${error.message}`, true);
  }
  if (plan.skill.digest !== assignment.skillDigest || plan.call.digest !== assignment.digest) {
    context.onDrift(skill.name);
    return refuse("expired", digestMismatchReason(assignment.skillInput ?? null, { input: plan.skill.input, callDigest: plan.call.digest }, assignment.digest), true);
  }
  if (running.stopReason) return refuse(running.stopReason.status, running.stopReason.message);
  if (assignment.secretsMismatch) return refuse("expired", assignment.secretsMismatch, true);
  if (maskProblem) return refuse("failed", maskProblem);
  if (assignment.secretsError) return refuse("failed", assignment.secretsError);
  const missingSecrets = skill.secretsNeeded.filter((name) => !Object.prototype.hasOwnProperty.call(secrets, name));
  if (missingSecrets.length > 0) return refuse("failed", missingSecretsReason(missingSecrets));
  const unusable = sandboxUnusableReason(host) ?? context.unusable();
  if (unusable) return refuse("failed", unusable);

  let snapshot: SkillSnapshot;
  try {
    snapshot = await materializeSnapshot(path.join(config.stateDir, "snapshots"), plan);
  } catch (error) {
    return refuse("failed", `the snapshot of ${skill.name} could not be written on worker ${config.name}: ${(error as Error).message}`);
  }
  const limits = { memoryMb: config.sandbox.memoryLimitMb, pids: config.sandbox.pidsLimit, cpu: config.sandbox.cpuLimit };
  let cgroup: CallCgroup;
  try {
    cgroup = await CallCgroup.create(host, assignment.callId, limits);
  } catch (error) {
    // Never left unreported: the call ends failed with the reason instead of waiting for its lease.
    return refuse("failed", `the cgroup of call ${assignment.callId} could not be made on worker ${config.name}: ${(error as Error).message}`);
  }
  const sandbox = describeCallSandbox(host);
  // Shown on the call's page (Call.sandbox), not as a timeline line.
  timeline.reportSandbox(sandbox);
  let command: ReturnType<typeof commandFor>;
  /** Whether the call's process group is written down in a running record (writeRunningRecord). */
  let recorded = false;
  try {
    const allowedRoots = sandboxAllowedRoots(skill, { paths: config.sandbox.allowPaths, bundledDir: config.bundledSkillsDir });
    command = commandFor(host, plan, snapshot, skill, context.hiddenPaths, allowedRoots, secrets);
  } catch (error) {
    await cgroup.remove().catch(() => undefined);
    return refuse("failed", `the sandbox of ${skill.name} could not be set up on worker ${config.name}: ${(error as Error).message}`);
  }
  try {
    const wrapped = cgroup.wrapCommand({ command: command.command, args: command.args });
    recorded = !cgroup.killsEverything;
    const timeoutMs = skill.timeoutSeconds * 1000;
    let stderrTruncated = false;
    const child = await launchProcess(
      context.launcher,
      {
        command: wrapped.command,
        args: wrapped.args,
        cwd: command.cwd,
        env: command.env,
        stdin: plan.stdin,
        timeoutMs,
        killGraceMs: config.killGraceMs,
        exitDrainMs: config.exitDrainMs,
        stdoutLimitBytes: config.stdoutLimitBytes,
        stderrLimitBytes: config.stderrLimitBytes,
        stderrLineLimit: config.stderrLineLimit,
        extraFds: command.extraFds,
        containment: cgroup.containment(),
      },
      {
        onSpawn: ({ pid, pgid, identity }) => {
          timeline.reportSpawn({ at: new Date().toISOString(), pid, pgid, host: identity.host, bootId: identity.bootId, procStart: identity.procStart });
          timeline.append("system", `started ${plan.label} (pid ${pid})`);
          // Where the cgroup kills every process of the call, the next start's sweep of stale cgroups
          // finds what a worker killed with -9 left; a file per call would only cost its write and unlink.
          if (recorded) writeRunningRecord(config.stateDir, assignment.callId, { pgid, identity });
        },
        onStderrLine: (line, edges) => timeline.append("stderr", line, edges),
        onStderrTruncated: (kept, cause) => {
          stderrTruncated = true;
          timeline.append(
            "system",
            cause.kind === "lines" ? `stderr truncated: the timeline keeps the first ${cause.keptLines} lines` : `stderr truncated: the timeline keeps the first ${kept} bytes (SKILL_STDERR_LIMIT_BYTES)`,
          );
        },
      },
    );
    // The child holds its own copies of the bind descriptors now.
    for (const fd of command.bindFds) closeSync(fd);
    onSpawned(cgroup.joined(JOIN_WAIT_MS));
    running.process = child;
    if (running.stopReason || running.lost) child.cancel();
    // The stdout is masked before anything is made of it: an error quoting its first characters could
    // otherwise cut a value and show all but its end.
    const raw = await child.done;
    const outcome = Object.keys(secrets).length === 0 ? raw : { ...raw, stdout: mask(raw.stdout, { cutBefore: false, cutAfter: raw.end === "stdout_overflow" }) };
    onSettled();
    const limitHit = await cgroup.limitHit();
    const readLimits = { timeoutMs, stdoutLimitBytes: config.stdoutLimitBytes };
    const read = plan.output === "text" ? interpretScriptOutcome(outcome, readLimits) : interpretSubprocessOutcome(outcome, readLimits);
    let verdict: { status: WorkerEndStatus; result: Record<string, unknown> | null; exitCode: number | null; error: string | null } = read;
    // Set by stopCall while the process ran (TypeScript narrowed it to null above).
    const stop = running.stopReason as RunningCall["stopReason"];
    if (read.status === "cancelled" && stop?.status === "interrupted") verdict = { ...read, status: "interrupted", error: stop.message };
    // A limit the call ran into fails it even if its entry carried on and exited 0: a process killed
    // for memory, a fork refused at the pids limit (a fork bomb) — its result may be missing what that
    // process was to do, and an operator must see the limit, not a success.
    if (limitHit) {
      const status = verdict.status === "cancelled" || verdict.status === "interrupted" ? verdict.status : "failed";
      verdict = { ...verdict, status, result: status === "failed" && verdict.status === "succeeded" ? null : verdict.result, error: verdict.error ? `${limitHit} (${verdict.error})` : limitHit };
    }
    timeline.append("system", endLine(outcome, verdict.status, verdict.error));
    // A subprocess skill's result is its stdout verbatim (seed 000); a script's is {"stdout": text}.
    const result = verdict.result === null ? null : plan.output === "text" ? JSON.stringify(verdict.result) : outcome.stdout.trim();
    await finish({ status: verdict.status, exitCode: verdict.exitCode, result, error: verdict.error, durationMs: Math.round(outcome.durationMs), stderrTruncated, sandbox });
  } finally {
    if (recorded) await forgetRunningRecord(config.stateDir, assignment.callId);
    await cgroup.remove().catch((error: unknown) => console.error(`worker: removing the cgroup of call ${assignment.callId} failed:`, error));
  }
}

/** How a call is sandboxed on this worker, as the call page shows it. */
export function describeCallSandbox(host: SandboxHost): CallSandbox {
  const limits: string[] = [];
  const { memory, pids, cpu } = host.limits;
  limits.push(memory.by === "none" ? "memory not limited" : `memory ${memory.value} MiB (${memory.by})`);
  limits.push(pids.by === "none" ? "processes not limited" : `${pids.value} processes (${pids.by})`);
  if (cpu.value !== null) limits.push(cpu.by === "none" ? "CPU not limited" : `${cpu.value} cores (${cpu.by})`);
  return { mode: host.mode, warning: host.warning, limits };
}

/** The process to spawn for a plan: inside the sandbox at the skill's own paths, or from the snapshot's paths without one. */
function commandFor(
  host: SandboxHost,
  plan: CallPlan,
  snapshot: SkillSnapshot,
  skill: RegisteredSkill,
  hiddenPaths: readonly string[],
  allowedRoots: readonly string[] | null,
  secrets: Readonly<Record<string, string>>,
): { command: string; args: string[]; cwd: string; env: Record<string, string>; extraFds: number[]; bindFds: number[] } {
  if (host.mode === "bwrap") {
    // Bound by descriptor: what the sandbox sees is the snapshot opened here, whatever happens to paths.
    const binds = [{ fd: openBindFd(snapshot.folder), target: plan.folder }];
    try {
      if (plan.outsideEntry && snapshot.entry) binds.push({ fd: openBindFd(snapshot.entry), target: plan.outsideEntry.realpath });
      // The launcher forks the call, never this process (see ProcessLauncher).
      const built = buildSandboxedCommand(host, sandboxRequestOf(plan, skill, binds, hiddenPaths, allowedRoots, secrets), { forkedHere: false });
      // bwrap's own working folder does not matter: it changes into the skill's folder inside.
      return { ...built, cwd: "/", bindFds: [...binds.map((bind) => bind.fd), ...built.openedFds] };
    } catch (error) {
      for (const bind of binds) closeSync(bind.fd);
      throw error;
    }
  }
  // Unsandboxed (SKILL_SANDBOX=none): the same program, with every path into the skill's folder
  // pointed at the snapshot instead, so the live folder is never what runs.
  const inSnapshot = (value: string) => (value === plan.folder || value.startsWith(`${plan.folder}${path.sep}`) ? path.join(snapshot.folder, path.relative(plan.folder, value)) : value);
  const command = plan.outsideEntry && snapshot.entry && plan.command === plan.outsideEntry.realpath ? snapshot.entry : inSnapshot(plan.command);
  return { command, args: plan.args.map(inSnapshot), cwd: snapshot.folder, env: childEnvironment(skill, { home: null, secrets }), extraFds: [], bindFds: [] };
}

/**
 * The sandbox request of one call (what buildSandboxedCommand gets): the plan's program at the skill's
 * own paths, the skill's environment with the private HOME, the snapshot `binds`, the skill's
 * declaration, the hidden paths and the allowed roots. Shared with the benchmark's baseline spawner
 * (bench/lib/direct-spawn.ts), so both run the same command. Pure.
 */
export function sandboxRequestOf(
  plan: CallPlan,
  skill: RegisteredSkill,
  binds: SandboxRequest["binds"],
  hiddenPaths: readonly string[],
  allowedRoots: readonly string[] | null,
  secrets: Readonly<Record<string, string>> = {},
): SandboxRequest {
  return {
    command: plan.command,
    args: plan.args,
    cwd: plan.folder,
    env: childEnvironment(skill, { home: SANDBOX_HOME, secrets }),
    binds,
    declaration: skill.sandbox,
    hiddenPaths: [...hiddenPaths],
    home: SANDBOX_HOME,
    allowedRoots,
  };
}

/**
 * A call's result (JSON text) with the secrets masked in what it says, decoded: the text is masked, then
 * parsed and every string and key masked again (an encoder may have written a value as `\u00e4`
 * escapes), and written again when that changed anything. A result that is not JSON after masking is
 * replaced by `{"masked": "<the masked text>"}`, which still shows what the skill wrote, without the value.
 */
function maskedResult(result: string | null, mask: (text: string) => string): string | null {
  if (result === null) return null;
  const masked = mask(result);
  let parsed: unknown;
  try {
    parsed = JSON.parse(masked);
  } catch {
    return masked === result ? result : JSON.stringify({ masked });
  }
  const decoded = maskJsonValue(parsed, mask);
  return decoded === parsed ? masked : JSON.stringify(decoded);
}

function endLine(outcome: ProcessOutcome, status: string, error: string | null): string {
  const after = `after ${outcome.durationMs} ms`;
  if (status === "succeeded") return `exited with code 0 ${after}`;
  if (status === "cancelled") return `cancelled on request: process group terminated ${after}`;
  if (status === "interrupted") return `interrupted: ${error ?? "the worker stopped"}; process group terminated ${after}`;
  if (status === "timed_out") return `${error ?? "timed out"}: process group terminated ${after}`;
  return `failed: ${error ?? "unknown error"} (${after})`;
}
