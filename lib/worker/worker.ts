import os from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import type { LeaseResponse, WorkerSession } from "@/lib/types/worker";
import type { WorkerConfig } from "@/lib/server/env";
import { LauncherPool } from "@/lib/server/executor";
import { sweepStaleCgroups } from "@/lib/server/executor/sandbox/call-cgroup";
import { closeInheritableFds } from "@/lib/server/executor/sandbox/inherited-fds";
import { cgroupJoinHintOfHost } from "@/lib/server/executor/sandbox/cgroup-placement";
import { detectSandboxHost, type SandboxHost } from "@/lib/server/executor/sandbox/sandbox-host";
import { pruneSnapshots } from "@/lib/server/skills/skill-snapshot";
import { ConsoleClient, ConsoleRequestError } from "./console-client";
import { JOIN_WAIT_MS, runAssignment, stopCall, type RunningCall } from "./run-assignment";
import { killLeftoverGroups } from "./running-records";
import { watchRoots, type RootWatcher } from "@/lib/server/skills/root-watcher";
import { ScanMemo, type DiskChange } from "@/lib/server/skills/scan-memo";
import { scannedRoots } from "@/lib/server/skills/scan-skills";
import { scanCatalog, type SkillCatalog } from "./skill-catalog";
import { prepareSnapshotStore } from "./snapshot-store";
import { acquireStateLock, type StateLock } from "./state-lock";

/** How long snapshots nobody used stay on disk, in ms. */
const SNAPSHOT_MAX_AGE_MS = 24 * 3600 * 1000;

/** The cgroup folder name of a worker's calls (under the cgroup the worker runs in). */
export function workerCgroupName(name: string): string {
  return `skill-worker-${name.replace(/[^A-Za-z0-9._-]/g, "_")}`;
}

/** When a worker rescans again after a drift, in ms after it (see Worker.afterDrift). */
export const DRIFT_RECHECK_MS = [2_000, 10_000, 60_000] as const;

/** How many process launchers fork a worker's calls (LauncherPool): two where there are two CPUs. */
const LAUNCHERS = Math.min(2, os.availableParallelism());

/** How long a stopping worker still waits for a spawn its launcher has not answered, in ms (then that launcher counts as hung). */
const STOP_LAUNCH_ANSWER_MS = 1_000;

/** A worker process's loop (DESIGN.md "Workers and the sandbox"). */
export class Worker {
  private readonly client: ConsoleClient;
  private readonly running = new Map<string, RunningCall>();
  private catalog: SkillCatalog = { skills: new Map(), reports: [] };
  private session: WorkerSession | null = null;
  private host: SandboxHost | null = null;
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];
  private rescanning: Promise<void> | null = null;
  private rescanAgain = false;
  /** What the last scan read (scan-memo.ts): a rescan after the watcher's changes reads and digests only what they touched. */
  private readonly memo = new ScanMemo();
  /** Watches the roots when SKILLS_WATCH allows (root-watcher.ts); null before start or when off. */
  private watcher: RootWatcher | null = null;
  /** Changes the watcher saw that no rescan has applied yet. */
  private readonly watchedChanges: DiskChange[] = [];
  /** Set when the next rescan must read everything again (a drift). */
  private fullRescanWanted = false;
  /** Paths every sandbox masks: this worker's own and the console's (WorkerSession.hiddenPaths). */
  private hiddenPaths: string[] = [];
  /** Why sandboxed calls cannot use the snapshot store, when they cannot (prepareSnapshotStore). */
  private snapshotProblem: string | null = null;
  /**
   * Fork every call's process, so this process — which grows with the skills it holds — never forks
   * (issue 9 point 6). Should one die, the calls it ran are stopped as interrupted; the next call it
   * gets starts a new one.
   */
  private readonly launchers = new LauncherPool(LAUNCHERS, (reason, pids) => {
    this.log(`worker: ${reason}; its calls are interrupted`);
    for (const running of this.running.values()) if (running.process && running.process.pid !== null && pids.includes(running.process.pid)) stopCall(running, "interrupted", reason);
  });

  /**
   * `config` and the worker `token` to register with; `version` is reported to the console; `log`
   * receives the worker's own lines; `bwrapCandidates` overrides where bwrap is looked for (tests of a
   * host without it).
   */
  constructor(
    private readonly config: WorkerConfig,
    token: string,
    private readonly version: string,
    private readonly log: (line: string) => void = (line) => console.log(line),
    private readonly bwrapCandidates?: readonly string[],
  ) {
    this.client = new ConsoleClient(config.consoleUrl, token);
  }

  /** The worker session's id once registered (tests, logs). */
  get id(): string | null {
    return this.session?.id ?? null;
  }

  /** The pids of the processes that fork this worker's calls, while they run (tests, the benchmark). */
  get launcherPids(): number[] {
    return this.launchers.pids;
  }

  /** Ids of the calls running here now. */
  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Starts the worker: closes file descriptors it inherited without close-on-exec (closeInheritableFds),
   * probes the sandbox (detectSandboxHost), kills what a previous run of this worker
   * left (process groups it recorded, its calls' cgroups), scans and digests its skills, registers
   * with the console (retrying while the console is unreachable or starting), then keeps one claim
   * poll open and renews the leases of its calls every third of the lease. Resolves once registered.
   * Throws ConsoleRequestError when the console refuses the worker (a bad or revoked token: 401).
   */
  async start(): Promise<void> {
    const { config } = this;
    // A descriptor this process inherited without close-on-exec would reach every skill (a way out of the sandbox).
    const closed = closeInheritableFds();
    if (closed.length > 0) this.log(`worker: closed inherited file descriptors ${closed.join(", ")} so no skill inherits them`);
    this.host = await detectSandboxHost({ mode: config.sandbox.mode, uid: config.sandbox.uid, limits: { memoryMb: config.sandbox.memoryLimitMb, pids: config.sandbox.pidsLimit, cpu: config.sandbox.cpuLimit }, cgroupName: workerCgroupName(config.name), ...(this.bwrapCandidates ? { bwrapCandidates: this.bwrapCandidates } : {}) });
    if (this.host.warning) this.log(`worker: warning: ${this.host.warning}`);
    const joinHint = this.host.mode === "bwrap" && this.host.cgroups.own.unified !== null ? cgroupJoinHintOfHost() : null;
    if (joinHint) this.log(`worker: note: ${joinHint}`);
    // Before anything of the folder is used: a second live worker on it would kill this one's calls.
    this.stateLock = await acquireStateLock(config.stateDir, config.name);
    const leftovers = (await killLeftoverGroups(config.stateDir, config.killGraceMs)) + (await sweepStaleCgroups(this.host, workerCgroupName(config.name)));
    if (leftovers > 0) this.log(`worker: stopped ${leftovers} process group(s) or cgroup(s) a previous run left`);
    const snapshots = await prepareSnapshotStore(config.stateDir, this.host.mode === "bwrap" ? this.host.uid : null);
    this.snapshotProblem = snapshots.problem;
    if (snapshots.problem) this.log(`worker: sandboxed calls cannot run: ${snapshots.problem}`);
    await pruneSnapshots(snapshots.store, new Set(), SNAPSHOT_MAX_AGE_MS);
    this.launchers.start();
    this.catalog = await scanCatalog(config, { memo: this.memo, previous: null });
    this.session = await this.register();
    // After registering: a change seen from here on is rescanned and reported to the session.
    if (config.watchSkills) this.watchSkillFolders();
    this.hiddenPaths = [...new Set([...config.sandboxHiddenPaths, ...(this.session.hiddenPaths ?? [])])].sort();
    const unavailable = this.catalog.reports.filter((report) => !report.available).length;
    this.log(`worker: ${config.name} registered with ${config.consoleUrl} as ${this.session.id}: ${this.catalog.reports.length} skills (${unavailable} unavailable here), sandbox ${this.host.mode}, ${config.concurrency} at once`);
    this.loops = [this.claimLoop(), this.leaseLoop()];
  }

  private async register(): Promise<WorkerSession> {
    const host = this.host!;
    let wait = 200;
    for (;;) {
      try {
        return await this.client.register({
          name: this.config.name,
          labels: this.config.labels,
          host: os.hostname(),
          version: this.version,
          pid: process.pid,
          concurrency: this.config.concurrency,
          sandbox: { requested: host.requested, mode: host.mode, warning: host.warning, uid: host.uid, limits: host.limits, kill: host.kill },
          skills: this.catalog.reports,
        });
      } catch (error) {
        if (!(error instanceof ConsoleRequestError) || !error.retryable || this.stopping.signal.aborted) throw error;
        this.log(`worker: the console is not reachable yet (${error.message}); retrying`);
      }
      await delay(wait, undefined, { signal: this.stopping.signal }).catch(() => undefined);
      wait = Math.min(wait * 2, 5_000);
    }
  }

  /** Calls whose processes may still run (RunningCall.settled not yet resolved): what WORKER_CONCURRENCY bounds. */
  private occupied = 0;

  /** The claim poll in flight when it asked for nothing (capacity 0): aborted when a slot frees up. */
  private idlePoll: AbortController | null = null;

  private async claimLoop(): Promise<void> {
    const session = this.session!;
    while (!this.stopping.signal.aborted) {
      const capacity = Math.max(0, this.config.concurrency - this.occupied);
      // A poll that asks for no calls can be dropped at any time (it claims nothing, and cancels are
      // derived from the database again on the next poll and lease renewal); one that asks for calls
      // is never aborted, so a call claimed for it is never lost in an abandoned answer.
      const poll = new AbortController();
      if (capacity === 0) this.idlePoll = poll;
      try {
        const answer = await this.client.claim(session.id, capacity, session.pollMs, AbortSignal.any([this.stopping.signal, poll.signal]));
        for (const id of answer.cancel) this.cancel(id, "cancelled", "cancelled on request");
        // A Rescan (or a console that does not say) reads everything; a change the console's watcher saw
        // reads only what this worker's own watcher saw change.
        if (answer.rescan) void this.rescan(answer.rescanEverything !== false);
        const idle = this.occupied === 0;
        const started = answer.calls.map((assignment) => this.startCall(assignment));
        // With nothing else running, the next poll waits until the new calls' processes are in their
        // cgroups (at most JOIN_WAIT_MS): the console answering it kept the other CPU busy, and a v2
        // cgroup join waited for an RCU grace period meanwhile (issue 9 point 6; CallCgroup.joined).
        // Where calls join only v1 hierarchies (by thread, no grace period), `joined` resolves at once.
        // Capped here too: a call refused before its spawn resolves `joined` only once its end is reported.
        if (idle && started.length > 0) await Promise.race([Promise.all(started.map((running) => running.joined)), delay(JOIN_WAIT_MS)]);
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        if (poll.signal.aborted) continue;
        if (error instanceof ConsoleRequestError && error.status === 401) return this.cutOff(error.message);
        this.log(`worker: claiming failed (${(error as Error).message}); retrying`);
        await delay(1000, undefined, { signal: this.stopping.signal }).catch(() => undefined);
      } finally {
        if (this.idlePoll === poll) this.idlePoll = null;
      }
    }
  }

  private startCall(assignment: Parameters<typeof runAssignment>[1]): RunningCall {
    const running = runAssignment(
      {
        config: this.config,
        host: this.host!,
        client: this.client,
        launcher: this.launchers,
        workerId: this.session!.id,
        skill: (name) => this.catalog.skills.get(name),
        hiddenPaths: this.hiddenPaths,
        unusable: () => this.snapshotProblem,
        onDrift: () => this.afterDrift(),
      },
      assignment,
    );
    this.running.set(assignment.callId, running);
    this.occupied++;
    // The slot frees once the call's processes are gone, before its end is reported: a poll for the
    // next call is then open by the time its client, just answered, asks again.
    void running.settled.then(() => {
      this.occupied--;
      this.idlePoll?.abort();
    });
    void running.done.finally(() => this.running.delete(assignment.callId));
    return running;
  }

  private cancel(callId: string, status: "cancelled" | "interrupted", message: string): void {
    const running = this.running.get(callId);
    if (running) stopCall(running, status, message);
  }

  private async leaseLoop(): Promise<void> {
    const session = this.session!;
    const every = Math.max(100, Math.floor(session.leaseMs / 3));
    while (!this.stopping.signal.aborted) {
      await delay(every, undefined, { signal: this.stopping.signal }).catch(() => undefined);
      if (this.stopping.signal.aborted) return;
      try {
        // Retried within the renewal period: one dropped connection must not cost a running call its lease.
        const answer = await this.client.sendReliably<LeaseResponse>("POST", `/api/v1/workers/${session.id}/lease`, { running: this.runningIds() }, { signal: this.stopping.signal, giveUpAfterMs: every });
        for (const id of answer.cancel) this.cancel(id, "cancelled", "cancelled on request");
        for (const id of answer.lost) {
          const running = this.running.get(id);
          if (!running) continue;
          running.lost = true;
          stopCall(running, "interrupted", "the console ended the call (its lease lapsed)");
        }
      } catch (error) {
        if (error instanceof ConsoleRequestError && error.status === 401) return this.cutOff(error.message);
        this.log(`worker: renewing leases failed (${(error as Error).message})`);
      }
    }
  }

  /**
   * Watches the roots and the skills path (issue 13 point 4): the changes it sees are rescanned — and
   * only the skills they touched digested again — and reported, without the console asking. A watch
   * that fails is logged; rescans then read everything again.
   */
  private watchSkillFolders(): void {
    this.watcher = watchRoots(
      scannedRoots(this.config).all,
      async (changes) => {
        this.watchedChanges.push(...changes);
        await this.rescan();
      },
      (reason) => this.log(`worker: ${reason}`),
    );
  }

  /**
   * Rescans the roots and reports the skills again (the console reloaded or saw a change, the watcher
   * saw one, or a copy drifted: `full`). While the roots are watched, a rescan reads again only what the
   * changes seen so far touched; a drift, an unwatched worker or a failed watch reads everything.
   * Coalesced: a rescan asked for while one runs runs once more after it. Resolves when the report is sent.
   */
  rescan(full = false): Promise<void> {
    if (full) this.fullRescanWanted = true;
    if (this.rescanning) {
      this.rescanAgain = true;
      return this.rescanning;
    }
    this.rescanning = (async () => {
      do {
        this.rescanAgain = false;
        const everything = this.fullRescanWanted || this.watcher === null || this.watcher.failure() !== null;
        this.fullRescanWanted = false;
        const changes = this.watchedChanges.splice(0);
        if (everything) this.memo.forget();
        else this.memo.invalidate(changes);
        this.catalog = await scanCatalog(this.config, { memo: this.memo, previous: everything ? null : this.catalog });
        await this.client.reportSkills(this.session!.id, this.catalog.reports).catch((error: unknown) => this.log(`worker: reporting skills failed: ${(error as Error).message}`));
      } while (this.rescanAgain);
    })().finally(() => {
      this.rescanning = null;
    });
    return this.rescanning;
  }

  /**
   * A copy turned out not to match what a call was bound to: rescans now, and again DRIFT_RECHECK_MS
   * later (2 s, 10 s, 60 s), so a folder caught mid-edit — or put back as it was — is reported as it
   * settles, and the calls bound to its approved bytes are claimed again without a manual reload.
   * A later drift restarts the follow-ups.
   */
  private afterDrift(): void {
    void this.rescan(true);
    for (const timer of this.driftTimers.splice(0)) clearTimeout(timer);
    for (const delayMs of DRIFT_RECHECK_MS) {
      const timer = setTimeout(() => {
        if (!this.stopping.signal.aborted) void this.rescan(true);
      }, delayMs);
      timer.unref();
      this.driftTimers.push(timer);
    }
  }

  /** The console refused this worker's token (revoked): stop every call and leave. */
  private cutOff(message: string): void {
    this.log(`worker: the console refused this worker (${message}); stopping`);
    this.cutOffReason ??= message;
    void this.stop("the worker's token was revoked");
  }

  /** Set when the console refused this worker's token; the worker has stopped or is stopping. */
  cutOffReason: string | null = null;

  /** Resolves once the worker stopped, whoever stopped it (a signal, its parent, a revoked token). */
  whenStopped(): Promise<void> {
    return this.stoppedSignal;
  }

  private markStopped: () => void = () => undefined;
  private readonly stoppedSignal = new Promise<void>((resolve) => (this.markStopped = resolve));

  /**
   * Stops the worker (SIGTERM, SIGINT, the console that started it went away): no new claims, every
   * running call is stopped (its whole process tree) and reported `interrupted` with `reason`, then the
   * session says goodbye. Resolves once done (callers bound the wait). Idempotent.
   */
  async stop(reason = "the worker stopped while the call ran"): Promise<void> {
    if (this.stopping.signal.aborted) return this.stopped;
    this.stopping.abort();
    this.stopped = (async () => {
      const calls = [...this.running.values()];
      for (const timer of this.driftTimers.splice(0)) clearTimeout(timer);
      const watcher = this.watcher;
      this.watcher = null;
      await watcher?.close();
      for (const running of calls) stopCall(running, "interrupted", reason);
      // A spawn a launcher has not answered by now is not waited for the whole LAUNCH_ANSWER_MS.
      this.launchers.hurry(STOP_LAUNCH_ANSWER_MS);
      await Promise.allSettled(calls.map((running) => running.done));
      await Promise.allSettled(this.loops);
      if (this.session) await this.client.goodbye(this.session.id).catch(() => undefined);
      await this.launchers.close();
      this.client.close();
      this.stateLock?.release();
    })().finally(() => this.markStopped());
    return this.stopped;
  }

  private stopped: Promise<void> = Promise.resolve();
  private readonly driftTimers: NodeJS.Timeout[] = [];
  private stateLock: StateLock | null = null;
}
