/**
 * Executor overhead benchmark: latency of one trivial call (`bench_noop`: sh reads stdin, prints
 * {"ok":true}) through `POST /api/v1/skills/bench_noop/calls` with `wait: true`, sequentially, against
 * the same skill run directly as the worker runs it, from a small baseline process of its own
 * (bench/lib/direct-spawn.ts in bench/lib/direct-spawner-process.ts: per-call cgroup, setpriv + bwrap
 * with the worker's mounts, the snapshot bound by descriptor, startProcess, cgroup removed) and, for
 * the sandbox's own cost, the same program spawned plainly from its snapshot with startProcess (no
 * bwrap, no cgroup). After a warm-up the three alternate (console call, sandboxed spawn, plain spawn);
 * p50/p95 of each and the differences in ms. CPU per call: the console's and the worker's own CPU plus
 * the worker's waited-for children (the call's process tree), from /proc/<pid>/stat around each call;
 * per direct spawn, the baseline process's own CPU plus its children's, read the same way.
 * Also the console's own `durationMs` (the worker's spawn to process group gone) and the medians of
 * the call's phases from its own timestamps (createdAt, startedAt = the worker's spawn, endedAt).
 */
import { request } from "./lib/http.mjs";
import { findLauncherPids, readCpu, readRss } from "./lib/server.mjs";
import { fmt, median, percentile } from "./lib/stats.mjs";

/** One console call of `skill` with `args`; throws unless it answered 200 and succeeded. */
export async function consoleCall(server, skillName, args = {}) {
  const answer = await request(server.baseUrl, "POST", `/api/v1/skills/${skillName}/calls`, { args, wait: true });
  if (answer.status !== 200 || answer.json?.call?.status !== "succeeded") {
    const error = new Error(`call answered ${answer.status} ${answer.json?.call?.status ?? ""}: ${answer.text.slice(0, 300)}`);
    error.answer = answer;
    throw error;
  }
  return answer;
}

/** One direct run (`spawner.sandboxed` or `spawner.plain`) of `skill` with "{}"; throws unless it printed {"ok":true} and exited 0. */
export async function directRun(run, skillName) {
  const result = await run(skillName, "{}");
  const { outcome } = result;
  if (!result.ok) {
    throw new Error(`direct spawn of ${skillName} ended ${outcome.end} (exit ${outcome.exitCode}): ${outcome.error ?? outcome.stdout.slice(0, 200)}`);
  }
  return result;
}

/**
 * CPU (ms) of the console's server process and its local worker: each one's own, and the worker's
 * children. The worker's own includes its process launchers' (the children that fork its calls, alive
 * all along, so never in the worker's waited-for children), and the worker's children are the
 * launchers' waited-for children: the calls' process trees.
 */
export function consoleCpu(server) {
  const console = readCpu(server.pid);
  const worker = server.workerPid ? readCpu(server.workerPid) : { selfMs: NaN, childrenMs: NaN };
  const launcher = { selfMs: 0, childrenMs: 0 };
  for (const pid of findLauncherPids(server.workerPid)) {
    const cpu = readCpu(pid);
    launcher.selfMs += cpu.selfMs;
    launcher.childrenMs += cpu.childrenMs;
  }
  return { console: console.selfMs, consoleChildren: console.childrenMs, worker: worker.selfMs + launcher.selfMs, workerChildren: worker.childrenMs + launcher.childrenMs };
}

const minus = (a, b) => Object.fromEntries(Object.keys(a).map((key) => [key, a[key] - b[key]]));
const sumOf = (values) => values.reduce((total, value) => total + value, 0);

/**
 * Runs the executor benchmark; returns `{ rows, notes, figures: { p50Ms, cpuPerCallMs, databaseCpuPerCallMs } }`.
 * `databaseCpu` (optional: a PostgreSQL console) reads the database server's CPU so far in ms; its share
 * per call gets a row of its own (with SQLite the database's work is in the console's own CPU).
 */
export async function benchExecutor({ server, spawner, skill, calls, warmup, databaseCpu = null }) {
  for (let i = 0; i < warmup; i++) {
    await consoleCall(server, skill);
    await directRun(spawner.sandboxed, skill);
    await directRun(spawner.plain, skill);
  }
  const viaConsole = [];
  const recorded = [];
  const sandboxed = [];
  const sandboxedProcess = [];
  const plain = [];
  const phases = { accept: [], claim: [], run: [], finish: [] };
  const consoleCpuDeltas = [];
  const databaseCpuDeltas = [];
  const sandboxedCpu = [];
  const plainCpu = [];
  for (let i = 0; i < calls; i++) {
    const databaseBefore = databaseCpu?.();
    const before = consoleCpu(server);
    const answer = await consoleCall(server, skill);
    consoleCpuDeltas.push(minus(consoleCpu(server), before));
    if (databaseCpu) databaseCpuDeltas.push(databaseCpu() - databaseBefore);
    viaConsole.push(answer.ms);
    const call = answer.json.call;
    recorded.push(call.durationMs);
    const [created, started, ended] = [call.createdAt, call.startedAt, call.endedAt].map(Date.parse);
    phases.accept.push(created - answer.sentAt);
    phases.claim.push(started - created);
    phases.run.push(ended - started);
    phases.finish.push(answer.doneAt - ended);

    let own = spawner.cpu();
    const box = await directRun(spawner.sandboxed, skill);
    let after = spawner.cpu();
    sandboxedCpu.push(minus(after, own));
    sandboxed.push(box.ms);
    sandboxedProcess.push(box.outcome.durationMs);

    own = after;
    const bare = await directRun(spawner.plain, skill);
    after = spawner.cpu();
    plainCpu.push(minus(after, own));
    plain.push(bare.ms);
  }
  const p = (values, q) => percentile(values, q);
  const cpuTotal = (deltas, keys) => sumOf(deltas.map((delta) => sumOf(keys.map((key) => delta[key])))) / deltas.length;
  const consolePerCall = cpuTotal(consoleCpuDeltas, ["console", "consoleChildren", "worker", "workerChildren"]);
  const sandboxedPerSpawn = cpuTotal(sandboxedCpu, ["selfMs", "childrenMs"]);
  const plainPerSpawn = cpuTotal(plainCpu, ["selfMs", "childrenMs"]);
  const target = (difference) => (difference <= 10 ? "met" : "not met");
  const rows = [
    { bench: "executor", metric: "call p50 (POST …/calls, wait:true) vs direct sandboxed spawn", server: p(viaConsole, 50), baseline: p(sandboxed, 50), unit: "ms", target: `≤ baseline + 10 ms: ${target(p(viaConsole, 50) - p(sandboxed, 50))}` },
    { bench: "executor", metric: "call p95 (POST …/calls, wait:true) vs direct sandboxed spawn", server: p(viaConsole, 95), baseline: p(sandboxed, 95), unit: "ms" },
    { bench: "executor", metric: "console-recorded durationMs p50 (worker's spawn → group gone) vs direct sandboxed spawn → group gone", server: p(recorded, 50), baseline: p(sandboxedProcess, 50), unit: "ms" },
    { bench: "executor", metric: "CPU per sequential call: console + worker + the call's processes vs direct sandboxed spawn (baseline process + children)", server: consolePerCall, baseline: sandboxedPerSpawn, unit: "ms" },
    { bench: "sandbox", metric: "direct spawn p50: sandboxed (cgroup + setpriv + bwrap) vs plain startProcess", server: p(sandboxed, 50), baseline: p(plain, 50), unit: "ms" },
    { bench: "sandbox", metric: "direct spawn p95: sandboxed vs plain", server: p(sandboxed, 95), baseline: p(plain, 95), unit: "ms" },
    { bench: "sandbox", metric: "CPU per direct spawn (baseline process + children): sandboxed vs plain", server: sandboxedPerSpawn, baseline: plainPerSpawn, unit: "ms" },
  ];
  const databasePerCall = databaseCpu ? sumOf(databaseCpuDeltas) / databaseCpuDeltas.length : null;
  if (databaseCpu) {
    rows.splice(4, 0, { bench: "executor", metric: "CPU per sequential call with the database server's own (PostgreSQL backends) vs direct sandboxed spawn", server: consolePerCall + databasePerCall, baseline: sandboxedPerSpawn, unit: "ms" });
  }
  const split = (deltas, key) => (sumOf(deltas.map((delta) => delta[key])) / deltas.length).toFixed(1);
  const notes = [
    `executor: ${calls} sequential rounds (console call, sandboxed spawn, plain spawn) after ${warmup} warm-up rounds; call p50 ${p(viaConsole, 50).toFixed(1)} ms = direct sandboxed spawn ${p(sandboxed, 50).toFixed(1)} ms + ${(p(viaConsole, 50) - p(sandboxed, 50)).toFixed(1)} ms of call path (HTTP, validation, database, claim, planning and digest on the worker, timeline, finish)`,
    `executor: call phases (medians, ms-resolution stamps): request → createdAt ${median(phases.accept).toFixed(1)} ms (HTTP in, auth, validation, plan + digest, insert) · createdAt → startedAt ${median(phases.claim).toFixed(1)} ms (wake the claim poll, claim CAS, answer, worker re-plans + digests, snapshot, cgroup, bwrap spawn) · startedAt → endedAt ${median(phases.run).toFixed(1)} ms (process, cgroup removal, finish report in) · endedAt → response ${median(phases.finish).toFixed(1)} ms (waiter woken, re-read, JSON, HTTP out)`,
    `executor: CPU per sequential call (ms): console ${split(consoleCpuDeltas, "console")}, worker ${split(consoleCpuDeltas, "worker")}, the call's processes (worker's children) ${split(consoleCpuDeltas, "workerChildren")}, console's children ${split(consoleCpuDeltas, "consoleChildren")}${databaseCpu ? `, PostgreSQL server ${databasePerCall.toFixed(1)}` : ""}; per direct sandboxed spawn: baseline process ${split(sandboxedCpu, "selfMs")}, children ${split(sandboxedCpu, "childrenMs")}; per plain spawn: baseline process ${split(plainCpu, "selfMs")}, children ${split(plainCpu, "childrenMs")} (/proc/<pid>/stat, 10 ms ticks, summed over ${calls} intervals)`,
    `executor: spawn → group gone (ms) at p10/p25/p50/p75/p90: the worker's (console-recorded durationMs) ${[10, 25, 50, 75, 90].map((q) => fmt(p(recorded, q))).join("/")}; the direct sandboxed spawn's ${[10, 25, 50, 75, 90].map((q) => fmt(p(sandboxedProcess, q))).join("/")} (a group or cgroup not yet empty when first checked is checked again after 1, 2, 4, … ms, up to GROUP_POLL_MS 25)`,
    `executor: RSS (libuv forks, so a spawn costs more in a larger process; see the sandbox rows on the spawning process's size): worker ${fmt(readRss(server.workerPid).rssMiB)} MiB (its ${findLauncherPids(server.workerPid).length} process launchers, which fork the calls: ${findLauncherPids(server.workerPid).map((pid) => fmt(readRss(pid).rssMiB)).join(" + ")} MiB), baseline process ${fmt(spawner.rss().rssMiB)} MiB, console ${fmt(readRss(server.pid).rssMiB)} MiB`,
  ];
  return { rows, notes, figures: { p50Ms: p(viaConsole, 50), cpuPerCallMs: consolePerCall, databaseCpuPerCallMs: databasePerCall } };
}
