import type { Call } from "@/lib/types/call";
import { recheckEntryBeforeSpawn } from "../skills/build-subprocess-skill";
import { sameExecution, type RegisteredSkill } from "../skills/registered-skill";
import { getRegistry } from "../skills/registry";
import { db } from "../db";
import { AppError } from "../errors";
import { config } from "../env";
import { interpretScriptOutcome, interpretSubprocessOutcome, startProcess, type ProcessOutcome, type RunningProcess } from "../executor";
import { recordAudit } from "../audit/audit-trail";
import { digestMismatch } from "../approvals/call-digest";
import { voidApprovalOfCall } from "../approvals/void-approval";
import { TRANSACTION_OPTIONS } from "../approvals/transaction-options";
import { openChannel, publishEnd } from "./call-bus";
import { toCall } from "./call-record";
import { CallSlots } from "./call-slots";
import { consoleInstanceId } from "./console-instance";
import { TimelineWriter } from "./timeline-writer";
import { planExecution } from "./execution-plan";

interface LocalCall {
  process: RunningProcess | null;
  cancelRequested: boolean;
  /** Set when the console stops under the call (interruptLocalCalls): it ends `interrupted` with this reason. */
  interruptReason: string | null;
  /** Aborted by a cancel: a call still waiting for a slot stops waiting at once. */
  queueAbort: AbortController;
  finished: Promise<Call>;
}

interface RunnerState {
  calls: Map<string, LocalCall>;
  slots: CallSlots;
  /** Bytes reserved by calls waiting for a slot (reserveQueueRoom). */
  queuedBytes: number;
}

const RUNNER_KEY = Symbol.for("skill-console.call-runner");
const store = globalThis as unknown as { [RUNNER_KEY]?: RunnerState };
const state = (store[RUNNER_KEY] ??= {
  calls: new Map(),
  slots: new CallSlots(() => config().maxConcurrentCalls),
  queuedBytes: 0,
});
state.queuedBytes ??= 0;

/** What each queued call costs the queue on top of its args: bounds the number of small queued calls too. */
export const QUEUED_CALL_OVERHEAD_BYTES = 1024;

/**
 * Bytes of args the calls waiting for a slot may hold in memory together: eight largest calls
 * (8 × SKILL_ARGS_LIMIT_BYTES, 64 MiB by default), or 65 536 small ones.
 */
export function queueBudgetBytes(): number {
  return 8 * config().argsLimitBytes;
}

/**
 * Reserves room in the queue of calls waiting for a slot for a call whose args are `argsJson`
 * (DESIGN.md: calls past SKILL_MAX_CONCURRENT_CALLS wait as `queued`; memory stays bounded). Each
 * queued call holds its args in memory until it gets a slot, so the queue is bounded by
 * queueBudgetBytes(), each call costing its args' UTF-8 bytes plus QUEUED_CALL_OVERHEAD_BYTES.
 * Returns the function that gives the room back (idempotent; runCall calls it when the call leaves the
 * queue). Throws AppError `unavailable` (503) when the queue is full; the caller must then store and
 * start nothing.
 */
export function reserveQueueRoom(argsJson: string): () => void {
  const cost = Buffer.byteLength(argsJson) + QUEUED_CALL_OVERHEAD_BYTES;
  const budget = queueBudgetBytes();
  if (state.queuedBytes + cost > budget) {
    throw new AppError("unavailable", `too many calls are waiting for a slot (their args fill the queue's ${budget} bytes); try again later`);
  }
  state.queuedBytes += cost;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    state.queuedBytes -= cost;
  };
}

/**
 * Runs a stored `queued` call of a skill of either kind in this process (a native skill's call runs
 * the script its args name: planExecution): waits for a slot (a cancel ends
 * the wait at once), refuses to start when a loader reload changed or removed the skill meanwhile
 * (changedSinceAccepted) or when the entry no longer passes the allow-list check
 * (recheckEntryBeforeSpawn; for a script, planExecution's checks) — both end the call `failed`
 * without spawning — then spawns the plan through the executor (an entry with the args as JSON on
 * stdin, or an allow-listed interpreter with the script and its argv), records the stderr timeline, and stores the end
 * state with a compare-and-set on `running` (a call another console already marked `interrupted` keeps
 * that status). `releaseQueueRoom` (from reserveQueueRoom) is called once the call leaves the queue.
 * `expectedDigest` (the call's digest frozen at request time, DESIGN.md "Dual-sign rules") is
 * recomputed from the files on disk just before the call is claimed `running`; a mismatch ends the call
 * `expired` with the reason, voids its approval, and spawns nothing. Claiming writes `call.started` and
 * the end state `call.finished` to the audit trail.
 * Returns at once; the promise of the finished Call is available through waitForCall().
 */
export function runCall(callId: string, skill: RegisteredSkill, argsJson: string, releaseQueueRoom: () => void = () => undefined, expectedDigest: string | null = null): void {
  openChannel(callId);
  const local: LocalCall = { process: null, cancelRequested: false, interruptReason: null, queueAbort: new AbortController(), finished: Promise.resolve(null as unknown as Call) };
  local.finished = execute(callId, skill, argsJson, local, releaseQueueRoom, expectedDigest).finally(() => {
    releaseQueueRoom();
    state.calls.delete(callId);
  });
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
  local.queueAbort.abort();
  local.process?.cancel();
  return true;
}

/**
 * Ends every call this process runs or has queued because the console is stopping (SIGTERM/SIGINT;
 * DESIGN.md: a killed child leaves a finished call record, and no call stays `running` after a stop):
 * queued calls end without spawning and running ones have their whole process group terminated (TERM,
 * then KILL after SKILL_KILL_GRACE_MS); each ends `interrupted` with `reason` and its timeline says so.
 * Resolves once every such call's end state is stored (callers bound the wait).
 */
export async function interruptLocalCalls(reason: string): Promise<void> {
  const running = [...state.calls.values()];
  for (const local of running) {
    local.interruptReason = reason;
    local.cancelRequested = true;
    local.queueAbort.abort();
    local.process?.cancel();
  }
  await Promise.allSettled(running.map((local) => local.finished));
}

/** Ids of the calls this process is running or has queued. */
export function localCallIds(): string[] {
  return [...state.calls.keys()];
}

/**
 * Why a call accepted for `skill` must not start now that it has a slot: a loader reload replaced the
 * skill by one that runs differently or under another class (the args were validated and the policy
 * applied to the old one), or removed it. Null when the registry still holds the same skill.
 */
async function changedSinceAccepted(skill: RegisteredSkill): Promise<string | null> {
  const current = (await getRegistry()).get(skill.name);
  if (current === skill) return null;
  if (!current) return `skill ${skill.name} was removed by a loader reload while the call was queued; it was not started`;
  if (sameExecution(current, skill)) return null;
  return `skill ${skill.name} changed (loader reload) while the call was queued; it was not started, start it again`;
}

async function execute(callId: string, skill: RegisteredSkill, argsJson: string, local: LocalCall, releaseQueueRoom: () => void, expectedDigest: string | null): Promise<Call> {
  const settings = config();
  const gotSlot = await state.slots.acquire(local.queueAbort.signal);
  releaseQueueRoom();
  try {
    const timeline = new TimelineWriter(callId, settings.eventFlushMs);
    if (local.interruptReason !== null) {
      timeline.append("system", `not started: ${local.interruptReason}`);
      return await finish(callId, timeline, "queued", { status: "interrupted", exitCode: null, error: local.interruptReason }, null, false);
    }
    if (!gotSlot || local.cancelRequested) {
      timeline.append("system", "cancelled before it started");
      return await finish(callId, timeline, "queued", { status: "cancelled", exitCode: null, error: "cancelled before it started" }, null, false);
    }
    const changed = await changedSinceAccepted(skill);
    if (changed) {
      timeline.append("system", changed);
      return await finish(callId, timeline, "queued", { status: "failed", exitCode: null, error: changed }, null, false);
    }
    if (expectedDigest !== null) {
      const mismatch = await digestMismatchExplained(callId, skill, argsJson, expectedDigest);
      if (mismatch) {
        timeline.append("system", `not started: ${mismatch}`);
        await voidApprovalOfCall(callId, mismatch);
        return await finish(callId, timeline, "queued", { status: "expired", exitCode: null, error: mismatch }, null, false);
      }
    }
    const claimed = await db().$transaction(async (tx) => {
      const started = await tx.call.updateMany({ where: { id: callId, status: "queued" }, data: { status: "running", startedAt: new Date() } });
      if (started.count !== 1) return false;
      await recordAudit({ action: "call.started", actor: "system", callId, skill: skill.name, digest: expectedDigest, details: { console: consoleInstanceId() } }, tx);
      return true;
    }, TRANSACTION_OPTIONS);
    if (!claimed) return toCall(await db().call.findUniqueOrThrow({ where: { id: callId } }));

    const timeoutMs = skill.timeoutSeconds * 1000;
    let identityWrite: Promise<unknown> = Promise.resolve();
    let stderrTruncated = false;
    // Checked synchronously right before the spawn: the entry must still be the file the loader checked,
    // and a script must still resolve under the skill's scripts/ folder to an allow-listed interpreter.
    const plan = planExecution(skill, argsJson, settings);
    const entryProblem = typeof plan === "string" ? plan : skill.kind === "subprocess" ? recheckEntryBeforeSpawn(skill) : null;
    if (entryProblem || typeof plan === "string") {
      const problem = entryProblem ?? "the call cannot be planned";
      timeline.append("system", `not started: ${problem}`);
      return await finish(callId, timeline, "running", { status: "failed", exitCode: null, error: problem }, null, false);
    }
    // And the digest once more, with no await between it and the spawn: the claim above may have
    // waited for another console's write lock, long enough to swap the entry file.
    const lastMismatch = expectedDigest === null ? null : digestMismatch(skill, argsJson, { digest: expectedDigest });
    if (lastMismatch) {
      // Nothing is spawned whatever the reason says; the frozen input only names what changed.
      const reason = (await digestMismatchExplained(callId, skill, argsJson, expectedDigest!)) ?? lastMismatch;
      timeline.append("system", `not started: ${reason}`);
      await voidApprovalOfCall(callId, reason);
      return await finish(callId, timeline, "running", { status: "expired", exitCode: null, error: reason }, null, false);
    }
    const child = startProcess(
      {
        command: plan.command,
        args: plan.args,
        cwd: plan.cwd,
        env: plan.env,
        stdin: plan.stdin,
        timeoutMs,
        killGraceMs: settings.killGraceMs,
        exitDrainMs: settings.exitDrainMs,
        stdoutLimitBytes: settings.stdoutLimitBytes,
        stderrLimitBytes: settings.stderrLimitBytes,
        stderrLineLimit: settings.stderrLineLimit,
      },
      {
        onSpawn: ({ pid, pgid, identity }) => {
          timeline.append("system", `started ${plan.label} (pid ${pid})`);
          // Written now, while the child runs: a console that dies under it leaves the group's identity
          // for the next console's lease recovery to kill. (A Prisma query is lazy — it runs only once
          // awaited or `.then`-ed — so it is started here explicitly, not at the end of the call.)
          identityWrite = db()
            .call.updateMany({
              where: { id: callId },
              data: { pgid, procStart: identity.procStart, host: identity.host, bootId: identity.bootId },
            })
            .then(
              () => undefined,
              (error: unknown) => console.error(`recording the process group of call ${callId} failed:`, error),
            );
        },
        onStderrLine: (line) => void timeline.append("stderr", line),
        onStderrTruncated: (kept, cause) => {
          stderrTruncated = true;
          timeline.append(
            "system",
            cause.kind === "lines"
              ? `stderr truncated: the timeline keeps the first ${cause.keptLines} lines`
              : `stderr truncated: the timeline keeps the first ${kept} bytes (SKILL_STDERR_LIMIT_BYTES)`,
          );
        },
      },
    );
    local.process = child;
    if (local.cancelRequested) child.cancel();
    const outcome = await child.done;
    await identityWrite.catch(() => undefined);
    const limits = { timeoutMs, stdoutLimitBytes: settings.stdoutLimitBytes };
    const read = plan.output === "text" ? interpretScriptOutcome(outcome, limits) : interpretSubprocessOutcome(outcome, limits);
    // Stopped because the console is stopping, not on anyone's request: the call was interrupted.
    const verdict: { status: Call["status"]; result: Record<string, unknown> | null; exitCode: number | null; error: string | null } =
      local.interruptReason !== null && read.status === "cancelled" ? { ...read, status: "interrupted", error: local.interruptReason } : read;
    timeline.append("system", endLine(outcome, verdict.status, verdict.error));
    // A subprocess skill's result is its stdout verbatim (seed 000); a script's is {"stdout": text}.
    const resultText = verdict.result === null ? null : plan.output === "text" ? JSON.stringify(verdict.result) : outcome.stdout.trim();
    return await finish(callId, timeline, "running", { ...verdict, resultText }, outcome, stderrTruncated);
  } finally {
    if (gotSlot) state.slots.release();
  }
}

/** The canonical digest input frozen with the call's approval, to name what changed; null for calls without one. */
async function frozenDigestInput(callId: string): Promise<string | null> {
  return (await db().approval.findUnique({ where: { callId }, select: { digestInput: true } }))?.digestInput ?? null;
}

/**
 * digestMismatch for a call about to be claimed: null when what it would run still has the frozen
 * digest, else the reason. The approval's frozen input, which only serves to name what changed in the
 * reason, is read only once there is a mismatch — most calls have no approval, and every call used to
 * pay that read. The verdict itself never depends on it.
 */
async function digestMismatchExplained(callId: string, skill: RegisteredSkill, argsJson: string, expectedDigest: string): Promise<string | null> {
  const mismatch = digestMismatch(skill, argsJson, { digest: expectedDigest });
  if (mismatch === null) return null;
  const frozenInput = await frozenDigestInput(callId);
  if (frozenInput === null) return mismatch;
  // Recomputed with the frozen input to name the changed parts; if the files changed back meanwhile,
  // the first verdict stands (the call is refused either way).
  return digestMismatch(skill, argsJson, { digest: expectedDigest, inputText: frozenInput }) ?? mismatch;
}

function endLine(outcome: ProcessOutcome, status: string, error: string | null): string {
  const after = `after ${outcome.durationMs} ms`;
  if (status === "succeeded") return `exited with code 0 ${after}`;
  if (status === "cancelled") return `cancelled on request: process group terminated ${after}`;
  if (status === "interrupted") return `interrupted: ${error ?? "the console stopped"}; process group terminated ${after}`;
  if (status === "timed_out") return `${error ?? "timed out"}: process group terminated ${after}`;
  return `failed: ${error ?? "unknown error"} (${after})`;
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
  // One compare-and-set that also returns the row; a call another console already ended (interrupted
  // after a lapsed lease) keeps its status, and is then read as it is.
  let won = true;
  const row = await db()
    .call.update({
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
    })
    .catch((error: unknown) => {
      if ((error as { code?: string }).code !== "P2025") throw error;
      won = false;
      return db().call.findUniqueOrThrow({ where: { id: callId } });
    });
  const call = toCall(row);
  if (won) {
    await recordAudit({
      action: "call.finished",
      actor: "system",
      callId,
      skill: row.skill,
      digest: row.digest,
      details: { status: call.status, exitCode: call.exitCode, error: call.error, durationMs: call.durationMs },
    }).catch((error: unknown) => console.error("audit of a finished call failed:", error));
  }
  publishEnd(callId, call);
  return call;
}
