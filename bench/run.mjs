#!/usr/bin/env node
/**
 * `npm run bench`: the skill console's benchmark suite. Generates skill roots in a temp folder, starts
 * the real production console (`node scripts/start.mjs`: migrate, build when stale, serve with
 * scripts/console-server.mjs, which starts the local worker) on a free port with a fresh SQLite
 * database, and runs, each against a baseline measured in the same run:
 *   1. loader.mjs          POST /api/v1/loader/reload over N manifests vs the faster of a sync and a parallel bare read
 *   2. executor.mjs        sequential trivial calls (wait: true) vs the same skill spawned directly as the
 *                          worker spawns it (cgroup + setpriv + bwrap, from a snapshot; bench/lib/direct-spawn.ts,
 *                          run in a small baseline process, bench/lib/direct-spawner-process.ts), and that
 *                          sandboxed spawn vs a plain one (the sandbox's own cost)
 *   3. throughput.mjs      16 concurrent clients for a fixed time vs 16 concurrent direct sandboxed spawns;
 *                          errors, RSS and CPU per call of the console and the worker
 *   4. stderr-latency.mjs  stderr write → SSE arrival (through the worker's event reports) vs write → line
 *                          read from a direct sandboxed spawn
 *   5. postgresql          the executor, throughput and stderr benchmarks again on a console whose
 *                          DATABASE_URL is a PostgreSQL 15 cluster of the bench's own (scripts/postgres-cluster.mjs,
 *                          durable: fsync and synchronous commits on), with PostgreSQL's own CPU per call beside
 *                          the console's, and the PostgreSQL ÷ SQLite ratios of the per-call figures (issue 11 point 5)
 *   6. scaling.mjs         one replica + one worker on one core vs two replicas + two workers on two cores
 *                          (taskset), 16 clients, PostgreSQL's CPU per call; then stderr → SSE with the call made on
 *                          one replica and its stream read from the other (issue 11 points 2 and 5)
 *   7. search.mjs          skill_search over N native skills (a console of its own, SKILLS_PATH at them,
 *                          no worker) vs a bare authenticated request
 * Prints figures, differences and ratios (console ÷ baseline) as a markdown table, with the targets of
 * the issue where it sets one, and writes it, with the machine's description, to bench/results.md.
 * Never fails on timing: it measures, it does not test.
 *
 *   8. soak.mjs           (only with --only=soak; 10 minutes) 32 clients of mixed traffic (calls, event streams,
 *                          approvals, reloads, reads): probe latency, worst event-loop stall, RSS, errors;
 *                          a default-sized run writes bench/soak-results.md
 *   9. stalls.mjs         the worst event-loop stall of each hostile request (huge bodies, deep nesting,
 *                          many-star persona globs) on a console of its own, one at a time (issue 10 point 1)
 * Options: --only=loader,executor,throughput,stderr,postgresql,scaling,search,stalls,soak  run a subset (results.md is written only by a run
 *                            of every phase, unprofiled, with no BENCH_* size set)
 *          --cpu-prof[=dir]  profile the console's server process and its worker (lib/cpu-prof-preload.cjs),
 *                            one profile part per phase (SIGUSR2 between phases; dir/phases.json names them;
 *                            default dir /tmp/skill-bench-prof), and print where their CPU goes per call in
 *                            the throughput phase (bench/profile-summary.mjs --groups)
 *          --keep            keep the temp folder (roots, databases, server logs)
 *          --favordynmods    run with the cgroup2 mount's favordynmods option on (root only; the mount's
 *                            own options are put back at the end), to see what the RCU grace period of
 *                            each call's cgroup join costs (lib/server/executor/sandbox/cgroup-placement.ts
 *                            cgroupJoinHint); results.md is not written by such a run
 * Sizes (environment): BENCH_SKILLS=10000 BENCH_LOADER_REPS=3 BENCH_LOADER_BUDGET_S=100 BENCH_EXEC_CALLS=200 BENCH_WARMUP=20
 *   BENCH_CLIENTS=16 BENCH_THROUGHPUT_S=60 BENCH_BASELINE_S=20 BENCH_THROUGHPUT_ROUNDS=4 BENCH_THROUGHPUT_WARMUP_S=5 BENCH_STDERR_LINES=200 BENCH_STDERR_RUNS=3
 *   BENCH_SCALING_S=60 (per set-up) BENCH_SCALING_ROUNDS=4
 *   BENCH_SEARCH_SKILLS=10000 BENCH_SEARCH_REQUESTS=300 BENCH_SOAK_CLIENTS=32 BENCH_SOAK_S=600
 * The machine should be quiet: the suite prints the load average at start and end.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { startPostgresCluster } from "../scripts/postgres-cluster.mjs";
import { serverEnvironment } from "../scripts/server-environment.mjs";
import { benchExecutor } from "./executor.mjs";
import { startDirectSpawner } from "./lib/direct-client.mjs";
import { generateExecRoot, generateFleetRoot, generateNativeRoot } from "./lib/fixtures.mjs";
import { request } from "./lib/http.mjs";
import { postgresCpuMs } from "./lib/postgres.mjs";
import { childrenRunning, findLauncherPids, foreignCpu, readRss, startServer, waitForWorker, waitQuiet } from "./lib/server.mjs";
import { fmt, fmtRatio, ratio } from "./lib/stats.mjs";
import { benchLoader } from "./loader.mjs";
import { benchScaling } from "./scaling.mjs";
import { benchSearch } from "./search.mjs";
import { benchSoak } from "./soak.mjs";
import { benchStalls, writeStallSkills } from "./stalls.mjs";
import { benchStderrLatency } from "./stderr-latency.mjs";
import { benchThroughput } from "./throughput.mjs";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(benchDir, "..");
const ALL = ["loader", "executor", "throughput", "stderr", "postgresql", "scaling", "search", "stalls"];
/** Phases run only when named in --only (the soak takes 10 minutes). */
const OPTIONAL = ["soak"];
const CALL_PHASES = ["loader", "executor", "throughput", "stderr"];

function option(name) {
  const arg = process.argv.slice(2).find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (!arg) return null;
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : true;
}
const envInt = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);

const settings = {
  skills: envInt("BENCH_SKILLS", 10_000),
  loaderReps: envInt("BENCH_LOADER_REPS", 3),
  loaderBudgetMs: envInt("BENCH_LOADER_BUDGET_S", 100) * 1000,
  execCalls: envInt("BENCH_EXEC_CALLS", 200),
  warmup: envInt("BENCH_WARMUP", 20),
  clients: envInt("BENCH_CLIENTS", 16),
  throughputMs: envInt("BENCH_THROUGHPUT_S", 60) * 1000,
  // Rounds of 5 s (4 rounds): rounds of 2.5 s moved with whatever the host did in them.
  baselineMs: envInt("BENCH_BASELINE_S", 20) * 1000,
  throughputWarmupMs: envInt("BENCH_THROUGHPUT_WARMUP_S", 5) * 1000,
  maxCalls: envInt("BENCH_MAX_CALLS", 20_000),
  throughputRounds: envInt("BENCH_THROUGHPUT_ROUNDS", 4),
  stderrLines: envInt("BENCH_STDERR_LINES", 200),
  stderrIntervalMs: envInt("BENCH_STDERR_INTERVAL_MS", 5),
  stderrRuns: envInt("BENCH_STDERR_RUNS", 3),
  searchSkills: envInt("BENCH_SEARCH_SKILLS", 10_000),
  searchRequests: envInt("BENCH_SEARCH_REQUESTS", 300),
  scalingMs: envInt("BENCH_SCALING_S", 60) * 1000,
  scalingRounds: envInt("BENCH_SCALING_ROUNDS", 4),
  soakClients: envInt("BENCH_SOAK_CLIENTS", 32),
  soakMs: envInt("BENCH_SOAK_S", 600) * 1000,
};
const only = option("only");
const selected = only && only !== true ? only.split(",").map((s) => s.trim()) : ALL;
const unknown = selected.filter((name) => !ALL.includes(name) && !OPTIONAL.includes(name));
if (unknown.length > 0) {
  console.error(`bench: unknown phase(s) ${unknown.join(", ")}; phases are ${[...ALL, ...OPTIONAL].join(", ")}`);
  process.exit(2);
}
const cpuProf = option("cpu-prof");
const profileDir = cpuProf ? (cpuProf === true ? "/tmp/skill-bench-prof" : path.resolve(cpuProf)) : null;
const keep = option("keep") !== null;
const sizesChanged = Object.keys(process.env).filter((name) => name.startsWith("BENCH_"));
// Only a run of every phase at the default sizes, unprofiled, replaces bench/results.md.
const favorDynmods = option("favordynmods") !== null;
const fullRun = selected.length === ALL.length && !cpuProf && sizesChanged.length === 0 && !favorDynmods;
/** Puts the cgroup2 mount's options back after a --favordynmods run (null: nothing to put back). */
let restoreCgroup2 = null;

/**
 * Turns favordynmods on for the cgroup2 mount (--favordynmods) and sets restoreCgroup2. Exits with 2
 * when the bench is not root or there is no cgroup2 mount.
 */
function enableFavorDynmods() {
  const line = fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n").find((entry) => / - cgroup2 /.test(entry));
  if (!line || process.getuid?.() !== 0) {
    console.error("bench: --favordynmods needs root and a cgroup2 mount");
    process.exit(2);
  }
  const mountPoint = line.split(" ")[4];
  const own = (line.split(" - ")[1]?.split(" ")[2] ?? "").split(",").filter((name) => name !== "rw" && name !== "ro");
  if (own.includes("favordynmods")) return;
  execFileSync("mount", ["-o", "remount,favordynmods", mountPoint]);
  // "ignore": exactly these options, not merged with the ones in force (which now hold favordynmods).
  restoreCgroup2 = () => execFileSync("mount", ["--options-mode", "ignore", "-o", ["remount", ...own].join(","), mountPoint]);
  console.log(`bench: favordynmods turned on for ${mountPoint} for this run`);
}

function machine() {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism?.() ?? cpus.length,
    cpu: cpus[0]?.model?.trim() ?? "unknown",
    memGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    bwrap: (() => {
      try {
        return execFileSync("bwrap", ["--version"], { encoding: "utf8" }).trim();
      } catch {
        return "bwrap missing";
      }
    })(),
    cgroup2: (() => {
      const line = fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n").find((entry) => / - cgroup2 /.test(entry));
      if (!line) return "no cgroup2 mount";
      const superOptions = line.split(" - ")[1]?.split(" ")[2] ?? "";
      return superOptions.split(",").includes("favordynmods")
        ? "cgroup2 mounted with favordynmods (joining a v2 cgroup does not wait for an RCU grace period)"
        : "cgroup2 mounted without favordynmods (joining a v2 cgroup waits for an RCU grace period, 8–15 ms here; a worker whose limits are all v1 ones joins only v1 hierarchies, by thread, and does not wait: see the worker line below)";
    })(),
    date: new Date().toISOString(),
    load: os.loadavg().map((n) => n.toFixed(2)).join(" "),
  };
}

function table(rows) {
  const lines = [
    "| benchmark | metric | console | baseline | console − baseline | ratio (console ÷ baseline) | target (issue 9 point 6, issue 11 points 2 and 5) |",
    "| --- | --- | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const row of rows) {
    const unit = row.unit ? ` ${row.unit}` : "";
    const known = row.baseline !== null && row.baseline !== undefined;
    const r = row.noRatio || !known ? "–" : `${fmtRatio(ratio(row.server, row.baseline))}${row.ratioLabel ? ` (${row.ratioLabel})` : row.better === "higher" ? " (higher is better)" : ""}`;
    const difference = known && Number.isFinite(row.server - row.baseline) ? `${row.server - row.baseline >= 0 ? "+" : ""}${fmt(row.server - row.baseline)}${unit}` : "–";
    lines.push(`| ${row.bench} | ${row.metric} | ${fmt(row.server)}${unit} | ${known ? `${fmt(row.baseline)}${unit}` : "–"} | ${difference} | ${r} | ${row.target ?? ""} |`);
  }
  return lines.join("\n");
}

const servers = new Set();
/** PostgreSQL clusters of this run (stopped at cleanup). */
const clusters = new Set();
let tmp = null;
let spawner = null;

async function cleanup() {
  for (const server of [...servers]) {
    servers.delete(server);
    await server.stop();
  }
  if (spawner) await spawner.close().catch(() => undefined);
  spawner = null;
  for (const cluster of [...clusters]) {
    clusters.delete(cluster);
    cluster.stop();
  }
  if (restoreCgroup2) {
    restoreCgroup2();
    restoreCgroup2 = null;
    console.log("bench: the cgroup2 mount's options are back as they were");
  }
  if (tmp && !keep) fs.rmSync(tmp, { recursive: true, force: true });
  else if (tmp) console.log(`bench: kept ${tmp}`);
  tmp = null;
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    console.error(`bench: ${signal}, stopping the console`);
    cleanup().finally(() => process.exit(130));
  });
}

/** Profile parts, per profiled pid: part k of that pid's profile covers phase `parts[k]`. */
const profileParts = [];

/** Cuts the profiles of `pids` (SIGUSR2: the preload writes the part so far) before phase `label`. */
async function cutProfiles(pids, label) {
  if (!profileDir) return;
  for (const { pid, role } of pids) {
    // Without the preload a process dies of SIGUSR2: signal only those whose NODE_OPTIONS carries it.
    let environ = "";
    try {
      environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8");
    } catch {
      // gone
    }
    if (!/(^|\0)NODE_OPTIONS=[^\0]*cpu-prof-preload\.cjs/.test(environ)) {
      console.log(`bench: WARNING ${role} pid ${pid} runs without the profiling preload in NODE_OPTIONS; not profiled`);
      continue;
    }
    let entry = profileParts.find((item) => item.pid === pid);
    if (!entry) profileParts.push((entry = { pid, role, parts: ["start-up"] }));
    try {
      process.kill(pid, "SIGUSR2");
      entry.parts.push(label);
    } catch {
      // gone
    }
  }
  await delay(300);
}

/** Starts one console with `env` (plus the bench's defaults) and registers it for cleanup. */
async function startConsole(name, env, readyPath) {
  const base = {
    // A session secret of this run only (without it the console would keep one under ./data).
    CONSOLE_AUTH_SECRET: randomBytes(32).toString("hex"),
  };
  if (profileDir) {
    base.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --require=${path.join(benchDir, "lib", "cpu-prof-preload.cjs")}`.trim();
    base.BENCH_CPU_PROF_DIR = profileDir;
  }
  // Both preloads when a phase brings its own (the soak's and the stalls' loop-delay preload) and --cpu-prof is on.
  const nodeOptions = [base.NODE_OPTIONS, env.NODE_OPTIONS].filter(Boolean).join(" ").trim();
  const server = await startServer({ projectRoot, env: { ...base, ...env, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) }, logFile: path.join(tmp, `${name}.log`), readyPath });
  servers.add(server);
  console.log(
    `bench: ${name} console ready on ${server.baseUrl} (server pid ${server.pid}, RSS ${fmt(readRss(server.pid).rssMiB)} MiB); ` +
      `${server.buildMs === null ? "no build needed" : `built in ${(server.buildMs / 1000).toFixed(1)} s`}, first answer ${(server.readyMs / 1000).toFixed(1)} s after "serving" (includes the first scan)`,
  );
  return server;
}

async function stopConsole(server) {
  servers.delete(server);
  await server.stop();
}

/**
 * Runs a long ticker call through the console and compares the argv of the bwrap its worker runs
 * (a child of one of the worker's process launchers, read from /proc) with the direct spawner's. Returns a note.
 */
async function compareSandboxCommand(server, skill) {
  const bwrap = fs.realpathSync(spawner.bwrapPath);
  const started = await request(server.baseUrl, "POST", `/api/v1/skills/${skill}/calls`, { args: { lines: 1, interval_ms: 0, delay_ms: 1500 }, wait: false });
  if (started.status !== 202) return `sandbox command: could not start ${skill} (${started.status})`;
  let found = [];
  for (let i = 0; i < 100 && found.length === 0; i++) {
    found = findLauncherPids(server.workerPid).flatMap((pid) => childrenRunning(pid, bwrap));
    if (found.length === 0) await delay(20);
  }
  await request(server.baseUrl, "GET", `/api/v1/calls/${started.json.call.id}`);
  if (found.length === 0) return "sandbox command: no bwrap child of the worker's launcher seen (not compared)";
  const worker = found[0].argv;
  const mine = [bwrap, ...(await spawner.bwrapArgv(skill)).slice(1)];
  if (JSON.stringify(worker) === JSON.stringify(mine)) return `sandbox command: the worker's bwrap argv for ${skill} (${worker.length} arguments, read from /proc/${found[0].pid}/cmdline) is identical to the direct spawner's`;
  const differing = worker.map((arg, i) => (arg === mine[i] ? null : `#${i} worker ${JSON.stringify(arg)} vs direct ${JSON.stringify(mine[i])}`)).filter(Boolean);
  return `sandbox command: WARNING the worker's bwrap argv differs from the direct spawner's (${worker.length} vs ${mine.length} arguments; ${differing.slice(0, 4).join("; ")})`;
}

async function main() {
  const wallStart = performance.now();
  if (favorDynmods) enableFavorDynmods();
  const info = machine();
  console.log(`bench: ${info.nproc} CPUs (${info.cpu}), node ${info.node}, ${info.bwrap}; ${info.cgroup2}; load ${info.load}; running ${selected.join(", ")}`);
  if (os.loadavg()[0] >= 1) console.log(`bench: WARNING the 1-minute load is ${os.loadavg()[0].toFixed(2)}: other work skews every figure`);
  // The worker and the direct spawner read files relative to the install folder (./data, ./skills).
  process.chdir(projectRoot);
  // The PATH the console and its worker run with (npm's additions dropped): skills allowing PATH get it.
  process.env.PATH = serverEnvironment(process.env).PATH;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "skill-bench-"));
  // The sandbox's uid must pass through to the snapshot stores under it (bwrap resolves the bind there).
  fs.chmodSync(tmp, 0o711);
  if (profileDir) {
    fs.mkdirSync(profileDir, { recursive: true });
    for (const file of fs.readdirSync(profileDir)) if (/\.cpuprofile$|^phases\.json$|^(process|memory)\.[\d.]+\.json$|^bundle\.\d+\.mjs$|^summary-.*\.md$/.test(file)) fs.rmSync(path.join(profileDir, file));
    console.log(`bench: profiling the console and its worker into ${profileDir}`);
  }
  const roots = path.join(tmp, "roots");
  const fleetRoot = path.join(roots, "fleet");
  const execRoot = path.join(roots, "exec");
  const nativeRoot = path.join(roots, "native");
  const t0 = performance.now();
  const skillCount = selected.includes("loader") ? settings.skills : 0;
  generateFleetRoot(fleetRoot, skillCount);
  generateExecRoot(execRoot);
  const native = selected.includes("search") ? generateNativeRoot(nativeRoot, settings.searchSkills) : [];
  console.log(`bench: generated ${skillCount} + 2 subprocess skills and ${native.length} native skills under ${roots} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const rows = [];
  const notes = [];
  const profileSummaries = [];
  const foreignNotes = [];
  const phases = [];
  const phaseStats = {};
  const run = async (name, pids, fn) => {
    if (!selected.includes(name)) return;
    if (pids.length > 0) {
      // The sampling profiler itself keeps a profiled process a little busy.
      const settled = await waitQuiet(pids.map((entry) => entry.pid), { maxMs: 120_000, quietMs: profileDir ? 60 : 10 });
      if (!settled.quiet) console.log(`bench: WARNING the console or its worker still used CPU after ${(settled.waitedMs / 1000).toFixed(0)} s; measuring anyway`);
    }
    await cutProfiles(pids, name);
    console.log(`bench: ${name} … (load ${os.loadavg()[0].toFixed(2)})`);
    const started = performance.now();
    const postgresRoots = () => [...clusters].map((cluster) => cluster.serverPid()).filter(Boolean);
    const foreign0 = foreignCpu(undefined, postgresRoots());
    const result = await fn();
    const elapsedMs = performance.now() - started;
    const foreign = foreignCpu(foreign0, postgresRoots());
    phases.push(`${name} ${(elapsedMs / 1000).toFixed(1)} s`);
    foreignNotes.push(`${name} ${(foreign.ms / 1000).toFixed(1)} CPU-s (${((100 * foreign.ms) / (elapsedMs * info.nproc)).toFixed(0)}% of the machine${foreign.top.length > 0 ? `; most: ${foreign.top.join(", ")}` : ""})`);
    rows.push(...result.rows);
    notes.push(...result.notes);
    if (result.stats) phaseStats[name] = result.stats;
    return result;
  };
  /** The direct spawner of the call baselines (started once, with the first call console's settings). */
  const ensureSpawner = async (env) => {
    spawner ??= await startDirectSpawner({
      cwd: projectRoot,
      env: { ...process.env, ...env },
      options: { skillRoot: execRoot, databaseFile: path.join(tmp, "bench.db"), stateDir: path.join(tmp, "direct-state"), cgroupName: "skill-bench-direct" },
    });
    return spawner;
  };
  /** The settings every call console of the bench runs with, on `databaseUrl`, its worker's state in `stateName`. */
  const callEnv = (databaseUrl, stateName, skillRoots) => ({
    DATABASE_URL: databaseUrl,
    ONGRID_SKILLS_EXTERNAL_DIRS: skillRoots.join(":"),
    // No native skills: the loader figures are about the generated manifests alone.
    SKILLS_PATH: path.join(roots, "no-native-skills"),
    SKILL_MAX_CONCURRENT_CALLS: String(settings.clients),
    // The local worker takes as many calls at once as there are clients, so it is not the cap.
    WORKER_CONCURRENCY: String(settings.clients),
    WORKER_STATE_DIR: path.join(tmp, stateName),
  });
  /** The per-call figures of the SQLite run, for the PostgreSQL ÷ SQLite rows. */
  const sqliteFigures = {};

  if (selected.some((name) => CALL_PHASES.includes(name))) {
    const dbFile = path.join(tmp, "bench.db");
    const env = callEnv(`file:${dbFile}`, "worker-state", [execRoot, fleetRoot]);
    console.log("bench: starting the console (scripts/start.mjs: migrate, build when stale, serve; then its local worker); signing in and creating an API token");
    const server = await startConsole("calls", env, "/api/v1/skills?category=bench");
    const workerStarted = performance.now();
    const worker = await waitForWorker(server, ["bench_noop", "bench_stderr_ticker"]);
    console.log(`bench: worker ${worker.name} (pid ${server.workerPid}) live: sandbox ${worker.sandbox.mode}, ${worker.concurrency} calls at once, ${worker.skillCounts.held} skills, ${((performance.now() - workerStarted) / 1000).toFixed(1)} s after the console answered`);
    await ensureSpawner(env);
    notes.push(
      `start-up: ${server.buildMs === null ? "production build up to date" : `production build ${(server.buildMs / 1000).toFixed(1)} s`}; first answer ${(server.readyMs / 1000).toFixed(1)} s after the server started (migrations done, includes the first scan of ${skillCount + 2} manifests); the worker was live (scanned and digested its roots, registered) ${((performance.now() - workerStarted) / 1000).toFixed(1)} s later`,
      `console settings: SKILL_MAX_CONCURRENT_CALLS=${settings.clients} WORKER_CONCURRENCY=${settings.clients}, other settings default (CALL_EVENT_FLUSH_MS 250, SKILL_EXIT_DRAIN_MS 300); every request carries an API token (default persona)`,
      `worker: sandbox ${worker.sandbox.mode} (${worker.sandbox.requested} requested), uid ${worker.sandbox.uid}, kill by ${worker.sandbox.kill}; the baseline process (pid ${spawner.pid}) probed the same: ${spawner.description}`,
    );
    notes.push(await compareSandboxCommand(server, "bench_stderr_ticker"));
    const pids = [
      { pid: server.pid, role: "console" },
      { pid: server.workerPid, role: "worker" },
    ];
    await run("loader", pids, () => benchLoader({ server, roots: [execRoot, fleetRoot], expected: skillCount + 2, reps: settings.loaderReps, budgetMs: settings.loaderBudgetMs, quietMs: profileDir ? 60 : 10 }));
    sqliteFigures.executor = (await run("executor", pids, () => benchExecutor({ server, spawner, skill: "bench_noop", calls: settings.execCalls, warmup: settings.warmup })))?.figures;
    sqliteFigures.throughput = (
      await run("throughput", pids, () =>
        benchThroughput({ server, spawner, skill: "bench_noop", clients: settings.clients, durationMs: settings.throughputMs, baselineDurationMs: settings.baselineMs, maxCalls: settings.maxCalls, rounds: settings.throughputRounds, warmupMs: settings.throughputWarmupMs }),
      )
    )?.figures;
    sqliteFigures.stderr = (await run("stderr", pids, () => benchStderrLatency({ server, spawner, skill: { name: "bench_stderr_ticker" }, lines: settings.stderrLines, intervalMs: settings.stderrIntervalMs, runs: settings.stderrRuns })))?.figures;
    await cutProfiles(pids, "shutdown");
    await stopConsole(server);
    // Now, before another console start may rebuild .next and change the chunks the profile names.
    if (profileDir) profileSummaries.push(...summariseProfiles(pids, phaseStats));
  }

  /**
   * The postgresql phase: a console on `cluster` (its local worker, the same skill roots as the SQLite
   * run), then the executor, throughput and stderr benchmarks as in the SQLite run, each with
   * PostgreSQL's CPU per call, and the PostgreSQL ÷ SQLite rows of the figures both runs measured.
   */
  const benchPostgres = async (cluster, databaseCpu) => {
    const env = callEnv(cluster.url, "pg-worker-state", [execRoot, fleetRoot]);
    console.log("bench: starting a console on the PostgreSQL cluster (same skill roots and settings as the SQLite run)");
    const server = await startConsole("postgresql", env, "/api/v1/skills?category=bench");
    await waitForWorker(server, ["bench_noop", "bench_stderr_ticker"]);
    await ensureSpawner(env);
    const pids = [
      { pid: server.pid, role: "pg-console" },
      { pid: server.workerPid, role: "pg-worker" },
    ];
    await run("postgresql", pids, async () => {
      const parts = [];
      const quiet = () => waitQuiet(pids.map((entry) => entry.pid), { maxMs: 60_000, quietMs: 10 });
      parts.push(await benchExecutor({ server, spawner, skill: "bench_noop", calls: settings.execCalls, warmup: settings.warmup, databaseCpu }));
      await quiet();
      parts.push(await benchThroughput({ server, spawner, skill: "bench_noop", clients: settings.clients, durationMs: settings.throughputMs, baselineDurationMs: settings.baselineMs, maxCalls: settings.maxCalls, rounds: settings.throughputRounds, warmupMs: settings.throughputWarmupMs, databaseCpu }));
      await quiet();
      parts.push(await benchStderrLatency({ server, spawner, skill: { name: "bench_stderr_ticker" }, lines: settings.stderrLines, intervalMs: settings.stderrIntervalMs, runs: settings.stderrRuns }));
      const [executor, throughput, stderr] = parts.map((part) => part.figures);
      // The sandbox rows measure the baseline alone: the SQLite run has them already.
      const rows = parts.flatMap((part) => part.rows).filter((row) => row.bench !== "sandbox").map((row) => ({ ...row, bench: `${row.bench} · PostgreSQL` }));
      const versus = [];
      if (sqliteFigures.executor) versus.push({ bench: "engines", metric: "call p50 (POST …/calls, wait:true): PostgreSQL vs SQLite", server: executor.p50Ms, baseline: sqliteFigures.executor.p50Ms, unit: "ms" });
      if (sqliteFigures.throughput) {
        versus.push(
          { bench: "engines", metric: `${settings.clients} clients, succeeded calls/s: PostgreSQL vs SQLite`, server: throughput.callsPerSecond, baseline: sqliteFigures.throughput.callsPerSecond, unit: "/s", better: "higher" },
          { bench: "engines", metric: `CPU per call at ${settings.clients} clients: PostgreSQL (console + worker + calls + PostgreSQL server) vs SQLite (console + worker + calls; SQLite runs inside the console)`, server: throughput.cpuPerCallMs + throughput.databaseCpuPerCallMs, baseline: sqliteFigures.throughput.cpuPerCallMs, unit: "ms" },
        );
      }
      if (sqliteFigures.stderr) versus.push({ bench: "engines", metric: "stderr write → SSE arrival p95: PostgreSQL vs SQLite", server: stderr.p95Ms, baseline: sqliteFigures.stderr.p95Ms, unit: "ms" });
      return { rows: [...rows, ...versus], notes: parts.flatMap((part) => part.notes).map((note) => `PostgreSQL ${note}`), stats: parts[1].stats };
    });
    await stopConsole(server);
  };

  /**
   * The scaling phase: on `cluster`, one replica pinned to CPU 0 on a database of its own, and two
   * replicas on another, pinned to CPUs 0 and 1, each with its local worker (bench/scaling.mjs); then the
   * stderr latency with calls made on one of the two and streamed from the other.
   */
  const benchScalingPhase = async (cluster) => {
    const started = [];
    const replica = async (name, database, cpus, workerName) => {
      const env = { ...callEnv(database, `${name}-worker-state`, [execRoot]), WORKER_NAME: workerName };
      const server = await startServer({ projectRoot, env: { CONSOLE_AUTH_SECRET: scalingSecret, ...env }, logFile: path.join(tmp, `${name}.log`), readyPath: "/api/v1/skills?category=bench", cpus });
      servers.add(server);
      started.push(server);
      await waitForWorker(server, ["bench_noop", "bench_stderr_ticker"]);
      console.log(`bench: ${name} replica on ${server.baseUrl} (taskset -c ${cpus}; server pid ${server.pid}, worker ${workerName} pid ${server.workerPid})`);
      return server;
    };
    // Replicas of one database share their session secret, as an operator's do.
    const scalingSecret = randomBytes(32).toString("hex");
    console.log("bench: starting the scaling set-ups: one replica on CPU 0 (database bench_one), two replicas on CPUs 0 and 1 (database bench_two)");
    const one = await replica("scaling-one", cluster.createDatabase("bench_one"), "0", "one-local");
    const twoUrl = cluster.createDatabase("bench_two");
    const two = [await replica("scaling-two-a", twoUrl, "0", "two-a"), await replica("scaling-two-b", twoUrl, "1", "two-b")];
    await ensureSpawner(callEnv(twoUrl, "scaling-direct", [execRoot]));
    const pids = started.flatMap((server, i) => [
      { pid: server.pid, role: `scaling-console-${i}` },
      { pid: server.workerPid, role: `scaling-worker-${i}` },
    ]);
    await run("scaling", pids, async () => {
      const scaling = await benchScaling({ cluster, one, two, skill: "bench_noop", clients: settings.clients, durationMs: settings.scalingMs, maxCalls: settings.maxCalls, rounds: settings.scalingRounds });
      await waitQuiet(pids.map((entry) => entry.pid), { maxMs: 60_000, quietMs: 10 });
      const across = await benchStderrLatency({ server: two[0], streamServer: two[1], spawner, skill: { name: "bench_stderr_ticker" }, lines: settings.stderrLines, intervalMs: settings.stderrIntervalMs, runs: settings.stderrRuns, label: "stderr · replicas" });
      return { rows: [...scaling.rows, ...across.rows], notes: [...scaling.notes, ...across.notes] };
    });
    for (const server of started) await stopConsole(server);
  };

  if (selected.includes("postgresql") || selected.includes("scaling")) {
    // Durable, as an operator runs it: fsync and synchronous commits on.
    console.log("bench: starting a PostgreSQL cluster of the bench's own (durable: fsync and synchronous commits on)");
    const cluster = await startPostgresCluster({ parent: tmp, durable: true, database: "bench_calls" });
    clusters.add(cluster);
    const databaseCpu = () => postgresCpuMs(cluster);
    notes.push(`postgresql: cluster pid ${cluster.serverPid()} on 127.0.0.1:${cluster.port}, durable (fsync, synchronous_commit and full_page_writes on, as PostgreSQL ships), max_connections 200, otherwise PostgreSQL's defaults; its CPU (postmaster + backends, /proc) is reported as PostgreSQL's own`);
    if (selected.includes("postgresql")) await benchPostgres(cluster, databaseCpu);
    if (selected.includes("scaling")) await benchScalingPhase(cluster);
    clusters.delete(cluster);
    cluster.stop();
  }

  if (selected.includes("soak")) {
    const soakRoot = path.join(roots, "soak");
    fs.mkdirSync(path.join(soakRoot, "wipe"), { recursive: true });
    fs.writeFileSync(
      path.join(soakRoot, "wipe", "skill.json"),
      JSON.stringify({ name: "soak_wipe", description: "Soak: a dangerous no-op that two approvers sign.", schema: { type: "object", properties: {} }, entry: "run.sh", env_allow: [], class: "dangerous", category: "bench" }),
    );
    fs.writeFileSync(path.join(soakRoot, "wipe", "run.sh"), '#!/bin/sh\ncat >/dev/null\necho \'{"ok":true}\'\n', { mode: 0o755 });
    const loopDelayFile = path.join(tmp, "loop-delay.jsonl");
    const env = {
      DATABASE_URL: `file:${path.join(tmp, "soak.db")}`,
      ONGRID_SKILLS_EXTERNAL_DIRS: `${execRoot}:${soakRoot}`,
      SKILLS_PATH: path.join(roots, "no-native-skills"),
      SKILL_MAX_CONCURRENT_CALLS: String(settings.soakClients),
      WORKER_CONCURRENCY: String(settings.soakClients),
      WORKER_STATE_DIR: path.join(tmp, "soak-worker-state"),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require=${path.join(benchDir, "lib", "loop-delay-preload.cjs")}`.trim(),
      BENCH_LOOP_DELAY_FILE: loopDelayFile,
    };
    console.log("bench: starting a console for the soak (its own database, the bench skills and a dangerous one)");
    const server = await startConsole("soak", env, "/api/v1/skills?category=bench");
    await waitForWorker(server, ["bench_noop", "bench_stderr_ticker", "soak_wipe"]);
    const pids = [
      { pid: server.pid, role: "soak-console" },
      { pid: server.workerPid, role: "soak-worker" },
    ];
    await run("soak", pids, () => benchSoak({ server, clients: settings.soakClients, durationMs: settings.soakMs, loopDelayFile }));
    await stopConsole(server);
  }

  if (selected.includes("stalls")) {
    const stallRoot = path.join(roots, "stalls");
    const names = writeStallSkills(stallRoot);
    const loopDelayFile = path.join(tmp, "stalls-loop-delay.jsonl");
    const intervalMs = 100;
    const env = {
      DATABASE_URL: `file:${path.join(tmp, "stalls.db")}`,
      ONGRID_SKILLS_EXTERNAL_DIRS: stallRoot,
      SKILLS_PATH: path.join(roots, "no-native-skills"),
      WORKER_STATE_DIR: path.join(tmp, "stalls-worker-state"),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require=${path.join(benchDir, "lib", "loop-delay-preload.cjs")}`.trim(),
      BENCH_LOOP_DELAY_FILE: loopDelayFile,
      BENCH_LOOP_DELAY_INTERVAL_MS: String(intervalMs),
    };
    console.log("bench: starting a console for the event-loop stalls of hostile requests (its own database and skills)");
    const server = await startConsole("stalls", env, "/api/v1/skills?category=bench");
    await waitForWorker(server, names);
    const pids = [
      { pid: server.pid, role: "stalls-console" },
      { pid: server.workerPid, role: "stalls-worker" },
    ];
    await run("stalls", pids, () => benchStalls({ server, loopDelayFile, intervalMs }));
    await stopConsole(server);
  }

  if (selected.includes("search")) {
    const emptyRoot = path.join(roots, "no-subprocess-skills");
    fs.mkdirSync(emptyRoot, { recursive: true });
    const env = {
      DATABASE_URL: `file:${path.join(tmp, "search.db")}`,
      ONGRID_SKILLS_EXTERNAL_DIRS: emptyRoot,
      SKILLS_PATH: nativeRoot,
      // Searching runs no call: no worker (it would only scan and digest the 10,000 skills again).
      CONSOLE_LOCAL_WORKER: "false",
    };
    console.log(`bench: starting a console with SKILLS_PATH at the ${native.length} native skills (no local worker)`);
    const server = await startConsole("search", env, "/api/v1/auth/session");
    const pids = [{ pid: server.pid, role: "search-console" }];
    await run("search", pids, () => benchSearch({ server, generated: native, requests: settings.searchRequests, warmup: settings.warmup }));
    await cutProfiles(pids, "shutdown");
    await stopConsole(server);
    if (profileDir) profileSummaries.push(...summariseProfiles(pids, phaseStats));
  }
  await cleanup();
  notes.push(`phases: ${phases.join(", ")}; whole run ${((performance.now() - wallStart) / 1000).toFixed(1)} s`);
  notes.push(`other work on the machine during each phase (CPU of processes outside the bench's own tree, from /proc): ${foreignNotes.join("; ")}`);
  notes.push(`load average (1/5/15 min): ${info.load} at start, ${os.loadavg().map((n) => n.toFixed(2)).join(" ")} at end (other work on the machine skews every figure)`);

  const summary = table(rows);
  console.log(`\n${summary}\n`);
  for (const note of notes) console.log(`- ${note}`);
  if (profileDir) {
    fs.writeFileSync(path.join(profileDir, "phases.json"), `${JSON.stringify(profileParts, null, 2)}\n`);
    console.log(`\nbench: profiles in ${profileDir} (phases.json names each part)`);
    for (const summary of profileSummaries) console.log(summary);
  }
  /** Writes bench/<file>: the title, how it was run, the machine, `about` (what the figures mean), the table and the notes. */
  const writeResults = (file, title, runBy, about) => {
    const md = [
      title,
      "",
      `Run by ${runBy} on ${info.date}.`,
      "",
      `Machine: ${info.nproc} CPUs (\`nproc\`), ${info.cpu}, ${info.memGiB} GiB RAM, ${info.kernel}, Node.js ${info.node}, ${info.bwrap}; ${info.cgroup2}.`,
      "",
      ...about,
      "",
      summary,
      "",
      "Notes:",
      "",
      ...notes.map((note) => `- ${note}`),
      "",
    ].join("\n");
    fs.writeFileSync(path.join(benchDir, file), md);
    console.log(`\nbench: wrote bench/${file}`);
  };
  if (fullRun) {
    writeResults("results.md", "# Skill console benchmarks", "`npm run bench` (bench/run.mjs)", [
      "Ratios are console ÷ baseline, both measured in the same run; for times lower is better, for throughput higher is better.",
      "Call baselines run the worker's own sandboxed command (same modules, mounts, snapshot and cgroup limits; bench/lib/direct-spawn.ts) from a small process of the bench's own (bench/lib/direct-spawner-process.ts), whose CPU is read from /proc like the console's and the worker's.",
      "The target column restates issue point 6 where it sets one; met/not met is read from this run's figures.",
      "Figures vary with machine load; they are measurements, not pass/fail thresholds.",
    ]);
  } else if (selected.length === 1 && selected[0] === "soak" && !cpuProf && sizesChanged.length === 0 && !favorDynmods) {
    writeResults("soak-results.md", "# Skill console soak benchmark", "`npm run bench -- --only=soak` (bench/run.mjs, bench/soak.mjs)", [
      "The target column restates issue 10 points 1 and 6; met/not met is read from this run's figures. Figures vary with machine load.",
    ]);
  } else {
    console.log(`\nbench: bench/results.md not written (${[selected.length < ALL.length && "a subset of the phases", cpuProf && "profiled", sizesChanged.length > 0 && `sizes set: ${sizesChanged.join(", ")}`, favorDynmods && "--favordynmods"].filter(Boolean).join("; ")})`);
  }
}

/**
 * Summarises, for the processes `pids`, the profile parts of the phases that report a unit count
 * (throughput: per call; search: per search + bare request pair) by kind of work
 * (bench/profile-summary.mjs --groups), writes each to dir/summary-<role>-<phase>.md and returns them.
 */
function summariseProfiles(pids, phaseStats) {
  const summaries = [];
  for (const { pid, role, parts } of profileParts.filter((entry) => pids.some((p) => p.pid === entry.pid))) {
    for (const [phase, stats] of Object.entries(phaseStats)) {
      const part = parts.indexOf(phase);
      if (part < 0 || !stats.units) continue;
      const file = fs.readdirSync(profileDir).find((name) => name.endsWith(".cpuprofile") && name.split(".")[3] === String(pid) && name.split(".")[5] === String(part));
      if (!file) {
        summaries.push(`bench: no profile part ${part} (${phase}) of ${role} pid ${pid}`);
        continue;
      }
      const output = execFileSync(process.execPath, [path.join(benchDir, "profile-summary.mjs"), path.join(profileDir, file), "--groups", "--top=15", `--per=${stats.units}`], { encoding: "utf8" });
      fs.writeFileSync(path.join(profileDir, `summary-${role}-${phase}.md`), output);
      let memory = "";
      try {
        const usage = JSON.parse(fs.readFileSync(path.join(profileDir, `memory.${pid}.${part}.json`), "utf8"));
        memory = `At the end of the phase: RSS ${fmt(usage.rss / 2 ** 20)} MiB, V8 heap ${fmt(usage.heapUsed / 2 ** 20)} used of ${fmt(usage.heapTotal / 2 ** 20)} MiB, external ${fmt(usage.external / 2 ** 20)} MiB.\n\n`;
      } catch {
        // no memory record
      }
      summaries.push(`\n### ${role} (pid ${pid}), ${phase} phase, per ${stats.unit} (${stats.units})\n\n${memory}${output}`);
    }
  }
  return summaries;
}

main().catch(async (error) => {
  console.error("bench failed:", error);
  for (const name of ["calls", "search"]) {
    const log = tmp && path.join(tmp, `${name}.log`);
    if (log && fs.existsSync(log)) console.error(`--- last lines of ${log}:\n${fs.readFileSync(log, "utf8").split("\n").slice(-40).join("\n")}`);
  }
  await cleanup().catch(() => undefined);
  process.exit(1);
});
