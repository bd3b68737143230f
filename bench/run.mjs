#!/usr/bin/env node
/**
 * `npm run bench`: the skill console's benchmark suite. Generates skill roots in a temp folder, starts
 * the real production console (`node scripts/start.mjs`: migrate, build when stale, serve with scripts/console-server.mjs) on a
 * free port with a fresh SQLite database, and runs, each against a baseline measured in the same run:
 *   1. loader.mjs          POST /api/v1/loader/reload over N manifests vs a bare walk + JSON.parse
 *   2. executor.mjs        sequential trivial calls (wait: true) vs direct spawns of the same script
 *   3. throughput.mjs      16 concurrent clients for a fixed time vs 16 concurrent direct spawns
 *   4. stderr-latency.mjs  stderr write → SSE arrival vs write → read of the stderr pipe
 * Prints figures and ratios (console ÷ baseline) as a markdown table and writes it, with the machine's
 * description, to bench/results.md. Never asserts on timing: it measures, it does not test.
 *
 * Options: --only=loader,executor,throughput,stderr  run a subset (results.md is then not written)
 *          --cpu-prof[=dir]  profile the console's server process (lib/cpu-prof-preload.cjs; profiles in dir,
 *                            default /tmp/skill-bench-prof; summarise them with bench/profile-summary.mjs)
 *          --keep            keep the temp folder (roots, database, server log)
 * Sizes (environment): BENCH_SKILLS=10000 BENCH_LOADER_REPS=3 BENCH_LOADER_BUDGET_S=100 BENCH_EXEC_CALLS=200 BENCH_WARMUP=20
 *   BENCH_CLIENTS=16 BENCH_THROUGHPUT_S=20 BENCH_BASELINE_S=10 BENCH_STDERR_LINES=200 BENCH_STDERR_RUNS=3
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchExecutor } from "./executor.mjs";
import { generateExecRoot, generateFleetRoot } from "./lib/fixtures.mjs";
import { readRss, startServer } from "./lib/server.mjs";
import { fmt, fmtRatio, ratio } from "./lib/stats.mjs";
import { benchLoader } from "./loader.mjs";
import { benchStderrLatency } from "./stderr-latency.mjs";
import { benchThroughput } from "./throughput.mjs";

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(benchDir, "..");
const ALL = ["loader", "executor", "throughput", "stderr"];

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
  throughputMs: envInt("BENCH_THROUGHPUT_S", 20) * 1000,
  baselineMs: envInt("BENCH_BASELINE_S", 10) * 1000,
  maxCalls: envInt("BENCH_MAX_CALLS", 20_000),
  stderrLines: envInt("BENCH_STDERR_LINES", 200),
  stderrIntervalMs: envInt("BENCH_STDERR_INTERVAL_MS", 5),
  stderrRuns: envInt("BENCH_STDERR_RUNS", 3),
};
const only = option("only");
const selected = only && only !== true ? only.split(",").map((s) => s.trim()) : ALL;
const cpuProf = option("cpu-prof");
const keep = option("keep") !== null;
const fullRun = selected.length === ALL.length && !cpuProf;

function machine() {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism?.() ?? cpus.length,
    cpu: cpus[0]?.model?.trim() ?? "unknown",
    memGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
    load: os.loadavg().map((n) => n.toFixed(2)).join(" "),
  };
}

function table(rows) {
  const lines = ["| benchmark | metric | console | baseline | ratio (console ÷ baseline) |", "| --- | --- | ---: | ---: | ---: |"];
  for (const row of rows) {
    const unit = row.unit ? ` ${row.unit}` : "";
    const r = row.noRatio || row.baseline === null ? "–" : `${fmtRatio(ratio(row.server, row.baseline))}${row.ratioLabel ? ` (${row.ratioLabel})` : row.better === "higher" ? " (higher is better)" : ""}`;
    const baseline = row.baseline === null ? "–" : `${fmt(row.baseline)}${unit}`;
    lines.push(`| ${row.bench} | ${row.metric} | ${fmt(row.server)}${unit} | ${baseline} | ${r} |`);
  }
  return lines.join("\n");
}

let server = null;
let tmp = null;

async function cleanup() {
  if (server) {
    const s = server;
    server = null;
    await s.stop();
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

async function main() {
  const wallStart = performance.now();
  const info = machine();
  console.log(`bench: ${info.nproc} CPUs (${info.cpu}), node ${info.node}; running ${selected.join(", ")}`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "skill-bench-"));
  const fleetRoot = path.join(tmp, "roots", "fleet");
  const execRoot = path.join(tmp, "roots", "exec");
  const t0 = performance.now();
  const skillCount = selected.includes("loader") ? settings.skills : 0;
  generateFleetRoot(fleetRoot, skillCount);
  const exec = generateExecRoot(execRoot);
  console.log(`bench: generated ${skillCount} + 2 skills under ${tmp}/roots in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const env = {
    DATABASE_URL: `file:${path.join(tmp, "bench.db")}`,
    ONGRID_SKILLS_EXTERNAL_DIRS: `${execRoot}:${fleetRoot}`,
    // No native skills: the loader figures are about the generated manifests alone.
    SKILLS_PATH: path.join(tmp, "roots", "no-native-skills"),
    SKILL_MAX_CONCURRENT_CALLS: String(settings.clients),
    // A session secret of this run only (without it the console would keep one under ./data).
    CONSOLE_AUTH_SECRET: randomBytes(32).toString("hex"),
  };
  if (cpuProf) {
    const dir = cpuProf === true ? "/tmp/skill-bench-prof" : path.resolve(cpuProf);
    fs.mkdirSync(dir, { recursive: true });
    env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --require=${path.join(benchDir, "lib", "cpu-prof-preload.cjs")}`.trim();
    env.BENCH_CPU_PROF_DIR = dir;
    console.log(`bench: profiling the console into ${dir}`);
  }
  console.log("bench: starting the console (scripts/start.mjs: migrate, build when stale, serve); signing in and creating an API token");
  server = await startServer({ projectRoot, env, logFile: path.join(tmp, "server.log"), readyPath: "/api/v1/skills?category=bench" });
  console.log(
    `bench: console ready on ${server.baseUrl} (server pid ${server.pid}, RSS ${fmt(readRss(server.pid).rssMiB)} MiB); ` +
      `${server.buildMs === null ? "no build needed" : `built in ${(server.buildMs / 1000).toFixed(1)} s`}, first answer ${(server.readyMs / 1000).toFixed(1)} s after "serving" (includes the first scan)`,
  );

  const rows = [];
  const notes = [
    `start-up: ${server.buildMs === null ? "production build up to date" : `production build ${(server.buildMs / 1000).toFixed(1)} s`}; first answer ${(server.readyMs / 1000).toFixed(1)} s after the server started (migrations done, includes the first scan of ${skillCount + 2} manifests)`,
    `console settings: SKILL_MAX_CONCURRENT_CALLS=${settings.clients}, other settings default (CALL_EVENT_FLUSH_MS 250, SKILL_EXIT_DRAIN_MS 300); every request carries an API token (default persona)`,
  ];
  const phases = [];
  const run = async (name, fn) => {
    if (!selected.includes(name)) return;
    console.log(`bench: ${name} …`);
    const started = performance.now();
    const result = await fn();
    phases.push(`${name} ${((performance.now() - started) / 1000).toFixed(1)} s`);
    rows.push(...result.rows);
    notes.push(...result.notes);
  };
  await run("loader", () => benchLoader({ server, roots: [execRoot, fleetRoot], expected: skillCount + 2, reps: settings.loaderReps, budgetMs: settings.loaderBudgetMs }));
  await run("executor", () => benchExecutor({ server, skill: exec.noop, calls: settings.execCalls, warmup: settings.warmup }));
  await run("throughput", () =>
    benchThroughput({ server, skill: exec.noop, clients: settings.clients, durationMs: settings.throughputMs, baselineDurationMs: settings.baselineMs, maxCalls: settings.maxCalls }),
  );
  await run("stderr", () => benchStderrLatency({ server, skill: exec.ticker, lines: settings.stderrLines, intervalMs: settings.stderrIntervalMs, runs: settings.stderrRuns }));
  await cleanup();
  notes.push(`phases: ${phases.join(", ")}; whole run ${((performance.now() - wallStart) / 1000).toFixed(1)} s`);
  notes.push(`load average (1/5/15 min): ${info.load} at start, ${os.loadavg().map((n) => n.toFixed(2)).join(" ")} at end (other work on the machine skews every figure)`);

  const summary = table(rows);
  console.log(`\n${summary}\n`);
  for (const note of notes) console.log(`- ${note}`);
  if (fullRun) {
    const md = [
      "# Skill console benchmarks",
      "",
      `Run by \`npm run bench\` (bench/run.mjs) on ${info.date}.`,
      "",
      `Machine: ${info.nproc} CPUs (\`nproc\`), ${info.cpu}, ${info.memGiB} GiB RAM, ${info.kernel}, Node.js ${info.node}.`,
      "",
      "Ratios are console ÷ baseline, both measured in the same run; for times lower is better, for throughput higher is better.",
      "Figures vary with machine load; they are measurements, not pass/fail thresholds.",
      "",
      summary,
      "",
      "Notes:",
      "",
      ...notes.map((note) => `- ${note}`),
      "",
    ].join("\n");
    fs.writeFileSync(path.join(benchDir, "results.md"), md);
    console.log("\nbench: wrote bench/results.md");
  }
}

main().catch(async (error) => {
  console.error("bench failed:", error);
  const log = tmp && path.join(tmp, "server.log");
  if (log && fs.existsSync(log)) console.error(`--- last lines of ${log}:\n${fs.readFileSync(log, "utf8").split("\n").slice(-40).join("\n")}`);
  await cleanup().catch(() => undefined);
  process.exit(1);
});
