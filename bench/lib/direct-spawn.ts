/**
 * The call benchmarks' baselines (bench/run.mjs; bundled by bench/lib/build-bench.mjs into
 * .bench-build/direct-spawn.mjs): a skill's process run from this process exactly as the worker runs
 * it (lib/worker/run-assignment.ts), with nothing of the call path around it — no HTTP, no database, no
 * claim, no planning or digest per call, no timeline upload. Uses the project's own modules, so the
 * baseline changes when the worker's spawn changes:
 *   - sandboxed: a per-call cgroup with the worker's limits (CallCgroup.create), the call's snapshot
 *     bound by descriptor (openBindFd) at the skill's own path inside setpriv + bwrap with the worker's
 *     mounts and hidden paths (buildSandboxedCommand), joined to the cgroup (wrapCommand), spawned and
 *     awaited by startProcess with the cgroup as containment, then the cgroup removed;
 *   - plain: the same program from the snapshot with startProcess and the skill's environment, no
 *     sandbox and no cgroup (what a SKILL_SANDBOX=none worker runs), for the sandbox's own cost.
 */
import { closeSync } from "node:fs";
import path from "node:path";
import { loadWorkerConfig, SCRIPT_SYSTEM_PATH, type WorkerConfig } from "@/lib/server/env";
import { startProcess, type ProcessOutcome } from "@/lib/server/executor";
import { openBindFd } from "@/lib/server/executor/sandbox/bind-fd";
import { CallCgroup, releaseCgroupRun } from "@/lib/server/executor/sandbox/call-cgroup";
import { closeInheritableFds } from "@/lib/server/executor/sandbox/inherited-fds";
import { buildSandboxedCommand } from "@/lib/server/executor/sandbox/sandbox-command";
import { detectSandboxHost, type SandboxHost } from "@/lib/server/executor/sandbox/sandbox-host";
import { planCall, type CallPlan } from "@/lib/server/skills/call-plan";
import { childEnvironment } from "@/lib/server/skills/child-environment";
import type { RegisteredSkill } from "@/lib/server/skills/registered-skill";
import { sandboxAllowedRoots, sandboxHiddenPaths } from "@/lib/server/skills/sandbox-allowance";
import { materializeSnapshot, type SkillSnapshot } from "@/lib/server/skills/skill-snapshot";
import { describeCallSandbox, SANDBOX_HOME, sandboxRequestOf } from "@/lib/worker/run-assignment";
import { scanCatalog } from "@/lib/worker/skill-catalog";
import { prepareSnapshotStore } from "@/lib/worker/snapshot-store";

/** What createDirectSpawner needs to mirror the bench console's local worker. */
export interface DirectSpawnerOptions {
  /**
   * The environment the console's local worker gets (the bench's console settings on top of this
   * process's environment): it decides the sandbox mode, uid, limits and the worker's hidden paths.
   */
  workerEnv: NodeJS.ProcessEnv;
  /** The root holding the skills to run (only it is scanned; the hidden paths still use every root of workerEnv). */
  skillRoot: string;
  /** The console's SQLite file: its folder is one of the paths the console tells its workers to hide. */
  databaseFile: string;
  /** Where this spawner keeps its own snapshot store (a folder the sandbox uid can pass through). */
  stateDir: string;
  /** The cgroup folder of this spawner's call cgroups (not the worker's own, so neither sweeps the other's). */
  cgroupName: string;
}

/** One direct run: wall time of the whole step (cgroup to cgroup removed, or spawn to exit) and the process's outcome. */
export interface DirectRun {
  /** ms from the first step (cgroup creation, or spawn) to the last (cgroup removed, or group gone). */
  ms: number;
  outcome: ProcessOutcome;
}

/** Runs one skill's process directly; see the module comment. */
export interface DirectSpawner {
  /** The sandbox as the worker would report it: mode, uid, limits, warning. */
  readonly description: string;
  readonly host: SandboxHost;
  /** The hidden paths every sandbox of this spawner masks (worker's ∪ console's). */
  readonly hiddenPaths: readonly string[];
  /** Runs `skill` sandboxed with `stdin`; `onStderrLine` sees each line when the executor has it. */
  sandboxed(skill: string, stdin: string, onStderrLine?: (line: string) => void): Promise<DirectRun>;
  /** Runs `skill` unsandboxed from its snapshot with `stdin`. */
  plain(skill: string, stdin: string, onStderrLine?: (line: string) => void): Promise<DirectRun>;
  /** The argv bwrap runs with for `skill` (what follows setpriv's options), to compare with the worker's. */
  bwrapArgv(skill: string): string[];
  /** Removes this spawner's cgroup run folder. */
  close(): Promise<void>;
}

interface Prepared {
  skill: RegisteredSkill;
  plan: CallPlan;
  snapshot: SkillSnapshot;
}

/**
 * Probes the sandbox as the worker does (detectSandboxHost with the worker's settings), scans
 * `skillRoot` with the worker's loader and writes each skill's snapshot once, as the worker's first
 * call of it would. Closes descriptors this process inherited without close-on-exec, as the worker
 * does at start (buildSandboxedCommand refuses to run while they are open). Throws when a setting is
 * unusable or a skill cannot be planned.
 */
export async function createDirectSpawner(options: DirectSpawnerOptions): Promise<DirectSpawner> {
  const closed = closeInheritableFds();
  if (closed.length > 0) console.log(`bench: closed inherited file descriptors ${closed.join(", ")} (as the worker does at start)`);
  // The worker reads its settings with a CONSOLE_URL; its value changes nothing of the spawn.
  const config: WorkerConfig = loadWorkerConfig({ ...options.workerEnv, CONSOLE_URL: "http://127.0.0.1:1" });
  const consoleHidden = sandboxHiddenPaths({
    installDir: process.cwd(),
    dataDir: path.resolve("./data"),
    skillRoots: config.skillRoots,
    skillsPath: config.skillsPath,
    databaseFile: options.databaseFile,
  });
  // The worker masks its own hidden paths and those the console sends at registration.
  const hiddenPaths = [...new Set([...config.sandboxHiddenPaths, ...consoleHidden])].sort();
  const limits = { memoryMb: config.sandbox.memoryLimitMb, pids: config.sandbox.pidsLimit, cpu: config.sandbox.cpuLimit };
  const host = await detectSandboxHost({ mode: config.sandbox.mode, uid: config.sandbox.uid, limits, cgroupName: options.cgroupName });
  const { store, problem } = await prepareSnapshotStore(options.stateDir, host.mode === "bwrap" ? host.uid : null);
  if (problem) throw new Error(`the bench's snapshot store is unusable: ${problem}`);
  const catalog = await scanCatalog({ ...config, skillRoots: [options.skillRoot], skillsPath: path.join(options.stateDir, "no-native-skills") });
  const prepared = new Map<string, Prepared>();
  for (const skill of catalog.skills.values()) {
    const plan = await planCall(skill, "{}", { scriptInterpreters: config.scriptInterpreters, systemPath: SCRIPT_SYSTEM_PATH, limits: config.skillFolderLimits, keepBytes: true });
    prepared.set(skill.name, { skill, plan, snapshot: await materializeSnapshot(store, plan) });
  }
  const lookup = (name: string): Prepared => {
    const found = prepared.get(name);
    if (!found) throw new Error(`no skill ${name} under ${options.skillRoot}`);
    return found;
  };
  const spec = (command: string, args: string[], cwd: string, env: Record<string, string>, stdin: string, timeoutSeconds: number) => ({
    command,
    args,
    cwd,
    env,
    stdin,
    timeoutMs: timeoutSeconds * 1000,
    killGraceMs: config.killGraceMs,
    exitDrainMs: config.exitDrainMs,
    stdoutLimitBytes: config.stdoutLimitBytes,
    stderrLimitBytes: config.stderrLimitBytes,
    stderrLineLimit: config.stderrLineLimit,
  });
  let counter = 0;
  const sandbox = describeCallSandbox(host);
  const allowedRootsOf = (skill: RegisteredSkill) => sandboxAllowedRoots(skill, { paths: config.sandbox.allowPaths, bundledDir: config.bundledSkillsDir });

  return {
    description: `${host.mode}${host.dropsPrivileges ? ` (setpriv to uid ${host.uid})` : ""}, ${sandbox.limits.join(", ")}, kill by ${host.kill}${host.warning ? `; warning: ${host.warning}` : ""}`,
    host,
    hiddenPaths,

    async sandboxed(name, stdin, onStderrLine) {
      const { skill, plan, snapshot } = lookup(name);
      if (host.mode !== "bwrap") throw new Error(`the sandbox is ${host.mode} on this host: ${host.warning ?? "no bwrap"}`);
      const started = performance.now();
      const cgroup = await CallCgroup.create(host, `bench-direct-${process.pid}-${++counter}`, limits);
      try {
        const binds = [{ fd: openBindFd(snapshot.folder), target: plan.folder }];
        const built = buildSandboxedCommand(host, sandboxRequestOf(plan, skill, binds, hiddenPaths, allowedRootsOf(skill)));
        const wrapped = cgroup.wrapCommand({ command: built.command, args: built.args });
        const child = startProcess(
          { ...spec(wrapped.command, wrapped.args, "/", built.env, stdin, skill.timeoutSeconds), extraFds: built.extraFds, containment: cgroup.containment() },
          { onStderrLine: (line) => onStderrLine?.(line) },
        );
        for (const bind of binds) closeSync(bind.fd);
        for (const fd of built.openedFds) closeSync(fd);
        const outcome = await child.done;
        const limitHit = await cgroup.limitHit();
        if (limitHit) outcome.error = limitHit;
        await cgroup.remove();
        return { ms: performance.now() - started, outcome };
      } catch (error) {
        await cgroup.remove().catch(() => undefined);
        throw error;
      }
    },

    async plain(name, stdin, onStderrLine) {
      const { skill, plan, snapshot } = lookup(name);
      const inSnapshot = (value: string) => (value === plan.folder || value.startsWith(`${plan.folder}${path.sep}`) ? path.join(snapshot.folder, path.relative(plan.folder, value)) : value);
      const started = performance.now();
      const child = startProcess(spec(inSnapshot(plan.command), plan.args.map(inSnapshot), snapshot.folder, childEnvironment(skill, { home: null }), stdin, skill.timeoutSeconds), {
        onStderrLine: (line) => onStderrLine?.(line),
      });
      const outcome = await child.done;
      return { ms: performance.now() - started, outcome };
    },

    bwrapArgv(name) {
      const { skill, plan } = lookup(name);
      // Descriptor numbers do not appear in the arguments (binds become fd 3, 4, …): nothing is opened.
      const built = buildSandboxedCommand(host, sandboxRequestOf(plan, skill, [{ fd: -1, target: plan.folder }], hiddenPaths, allowedRootsOf(skill)));
      for (const fd of built.openedFds) closeSync(fd);
      return host.dropsPrivileges ? built.args.slice(built.args.indexOf("--") + 1) : [built.command, ...built.args];
    },

    async close() {
      await releaseCgroupRun(host);
    },
  };
}
