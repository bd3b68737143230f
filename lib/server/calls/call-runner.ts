import type { Call } from "@/lib/types/call";
import type { SubprocessSkill } from "../skills/registered-skill";
import { db } from "../db";
import { config, consoleEnvValue } from "../env";
import { interpretSubprocessOutcome, startProcess, type ProcessOutcome, type RunningProcess } from "../executor";
import { openChannel, publishEnd } from "./call-bus";
import { toCall } from "./call-record";
import { CallSlots } from "./call-slots";
import { TimelineWriter } from "./timeline-writer";

interface LocalCall {
  process: RunningProcess | null;
  cancelRequested: boolean;
  finished: Promise<Call>;
}

interface RunnerState {
  calls: Map<string, LocalCall>;
  slots: CallSlots;
}

const RUNNER_KEY = Symbol.for("skill-console.call-runner");
const store = globalThis as unknown as { [RUNNER_KEY]?: RunnerState };
const state = (store[RUNNER_KEY] ??= {
  calls: new Map(),
  slots: new CallSlots(() => config().maxConcurrentCalls),
});

/**
 * The exact environment of a subprocess skill's child: only the `env_allow` names that the console's
 * own environment has (seed 000: an empty list means an empty environment, not even PATH).
 */
export function childEnvironment(envAllow: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of envAllow) {
    const value = consoleEnvValue(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Runs a stored `queued` call of a subprocess skill in this process: waits for a slot, spawns the entry
 * through the executor with the args as JSON on stdin, records the stderr timeline, and stores the end
 * state with a compare-and-set on `running` (a call another console already marked `interrupted` keeps
 * that status). Returns at once; the promise of the finished Call is available through waitForCall().
 */
export function runCall(callId: string, skill: SubprocessSkill, argsJson: string): void {
  openChannel(callId);
  const local: LocalCall = { process: null, cancelRequested: false, finished: Promise.resolve(null as unknown as Call) };
  local.finished = execute(callId, skill, argsJson, local).finally(() => state.calls.delete(callId));
  state.calls.set(callId, local);
}

/** The finished Call of a call this process runs, or null when it does not run it. */
export function waitForCall(callId: string): Promise<Call> | null {
  return state.calls.get(callId)?.finished ?? null;
}

/**
 * Cancels a call this process runs: a queued call ends `cancelled` without spawning; a running one has
 * its whole process group terminated (TERM, then KILL after the grace). Returns false when the call is
 * not run here.
 */
export function cancelLocalCall(callId: string): boolean {
  const local = state.calls.get(callId);
  if (!local) return false;
  local.cancelRequested = true;
  local.process?.cancel();
  return true;
}

/** Ids of the calls this process is running or has queued. */
export function localCallIds(): string[] {
  return [...state.calls.keys()];
}

async function execute(callId: string, skill: SubprocessSkill, argsJson: string, local: LocalCall): Promise<Call> {
  const settings = config();
  await state.slots.acquire();
  try {
    const timeline = new TimelineWriter(callId, settings.eventFlushMs);
    if (local.cancelRequested) {
      timeline.append("system", "cancelled before it started");
      return await finish(callId, timeline, "queued", { status: "cancelled", exitCode: null, error: "cancelled before it started" }, null, false);
    }
    const started = await db().call.updateMany({
      where: { id: callId, status: "queued" },
      data: { status: "running", startedAt: new Date() },
    });
    if (started.count !== 1) return toCall(await db().call.findUniqueOrThrow({ where: { id: callId } }));

    const timeoutMs = skill.timeoutSeconds * 1000;
    let identityWrite: Promise<unknown> = Promise.resolve();
    let stderrTruncated = false;
    const child = startProcess(
      {
        command: skill.entryPath,
        args: [],
        cwd: skill.workingDirectory,
        env: childEnvironment(skill.envAllow),
        stdin: argsJson,
        timeoutMs,
        killGraceMs: settings.killGraceMs,
        exitDrainMs: settings.exitDrainMs,
        stdoutLimitBytes: settings.stdoutLimitBytes,
        stderrLimitBytes: settings.stderrLimitBytes,
      },
      {
        onSpawn: ({ pid, pgid, identity }) => {
          timeline.append("system", `started ${skill.entryPath} (pid ${pid})`);
          identityWrite = db().call.update({
            where: { id: callId },
            data: { pgid, procStart: identity.procStart, host: identity.host, bootId: identity.bootId },
          });
        },
        onStderrLine: (line) => void timeline.append("stderr", line),
        onStderrTruncated: (kept) => {
          stderrTruncated = true;
          timeline.append("system", `stderr truncated: the timeline keeps the first ${kept} bytes (SKILL_STDERR_LIMIT_BYTES)`);
        },
      },
    );
    local.process = child;
    if (local.cancelRequested) child.cancel();
    const outcome = await child.done;
    await identityWrite.catch(() => undefined);
    const verdict = interpretSubprocessOutcome(outcome, { timeoutMs, stdoutLimitBytes: settings.stdoutLimitBytes });
    timeline.append("system", endLine(outcome, verdict.status, verdict.error));
    const resultText = verdict.result === null ? null : outcome.stdout.trim();
    return await finish(callId, timeline, "running", { ...verdict, resultText }, outcome, stderrTruncated);
  } finally {
    state.slots.release();
  }
}

function endLine(outcome: ProcessOutcome, status: string, error: string | null): string {
  if (status === "succeeded") return `exited with code 0 after ${outcome.durationMs} ms`;
  return `${status}: ${error ?? "unknown error"} (after ${outcome.durationMs} ms)`;
}

async function finish(
  callId: string,
  timeline: TimelineWriter,
  expectedStatus: "queued" | "running",
  verdict: { status: Call["status"]; exitCode: number | null; error: string | null; resultText?: string | null },
  outcome: ProcessOutcome | null,
  stderrTruncated: boolean,
): Promise<Call> {
  await timeline.close();
  await db().call.updateMany({
    where: { id: callId, status: expectedStatus },
    data: {
      status: verdict.status,
      result: verdict.resultText ?? null,
      exitCode: verdict.exitCode,
      error: verdict.error,
      endedAt: new Date(),
      durationMs: outcome ? Math.round(outcome.durationMs) : null,
      eventCount: timeline.count,
      stderrTruncated,
      leaseUntil: null,
    },
  });
  const call = toCall(await db().call.findUniqueOrThrow({ where: { id: callId } }));
  publishEnd(callId, call);
  return call;
}
