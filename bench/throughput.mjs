/**
 * Sustained throughput benchmark: C concurrent clients (default 16) doing trivial safe calls
 * (`bench_noop`, wait: true) back to back for a fixed duration, bounded in count, with the local
 * worker allowed C calls at once (WORKER_CONCURRENCY, set by bench/run.mjs). Reports succeeded
 * calls/s, errors (non-200 answers, calls that did not succeed, network errors; by kind), per-call
 * latency, the RSS of the console's server process and of its worker at start and end (VmRSS, and the
 * VmHWM peak), and CPU per call from /proc/<pid>/stat deltas: the console's and the worker's own
 * (utime + stime) and the worker's waited-for children (cutime + cstime: the calls' process trees).
 * Baseline: C concurrent direct sandboxed spawns of the same skill in the baseline process
 * (bench/lib/direct-spawner-process.ts, exactly as the worker spawns), spawns/s and CPU per spawn
 * (that process plus its children, from /proc like the worker's); and C concurrent plain spawns, for
 * the sandbox's own cost under load. The three alternate in `rounds` rounds (BENCH_THROUGHPUT_ROUNDS,
 * default 4), each a `rounds`-th of its duration, so a drift of the host's load falls on both sides,
 * after a warm-up of both (`warmupMs`, BENCH_THROUGHPUT_WARMUP_S, default 5 s) that is not counted.
 */
import { consoleCpu, directRun } from "./executor.mjs";
import { request } from "./lib/http.mjs";
import { ownCpu, readRss } from "./lib/server.mjs";
import { runConcurrently } from "./lib/spawn.mjs";
import { fmt, percentile } from "./lib/stats.mjs";

const minus = (a, b) => Object.fromEntries(Object.keys(a).map((key) => [key, a[key] - b[key]]));

/** C direct runs back to back for `durationMs` in the baseline process: `{ done, errors, elapsedMs, cpu: {selfMs, childrenMs}, latencies }`. */
async function directLoad(spawner, kind, skill, clients, durationMs, maxCalls) {
  const cpu0 = spawner.cpu();
  const result = await spawner.load(kind, skill, clients, durationMs, maxCalls);
  return { ...result, cpu: minus(spawner.cpu(), cpu0) };
}

/**
 * What the spawning process's size costs each spawn (libuv forks it, page tables and all): `runs`
 * sequential sandboxed spawns from the lean baseline process, then as many with it holding enough
 * memory to be as large as the worker (`workerRssMiB`). Resolves `{ lean, heavy, leanRss, heavyRss }`
 * (each `{ p50, cpuMs }` per spawn), or null when the worker is not larger.
 */
async function spawnerSizeCost(spawner, skill, workerRssMiB, runs = 100) {
  const leanRss = spawner.rss().rssMiB;
  if (!Number.isFinite(workerRssMiB) || workerRssMiB < leanRss + 16) return null;
  const block = async () => {
    const times = [];
    const cpu0 = spawner.cpu();
    for (let i = 0; i < runs; i++) times.push((await directRun(spawner.sandboxed, skill)).ms);
    const cpu = minus(spawner.cpu(), cpu0);
    return { p50: percentile(times, 50), cpuMs: (cpu.selfMs + cpu.childrenMs) / runs };
  };
  const lean = await block();
  const heavyRss = await spawner.ballast(workerRssMiB - leanRss);
  const heavy = await block();
  await spawner.ballast(0);
  return { lean, heavy, leanRss, heavyRss };
}

/**
 * Runs the throughput benchmark; returns `{ rows, notes, stats, figures: { callsPerSecond, cpuPerCallMs, databaseCpuPerCallMs, errors } }`.
 * `databaseCpu` (optional: a PostgreSQL console) reads the database server's CPU so far in ms, reported per call beside the console's.
 */
export async function benchThroughput({ server, spawner, skill, clients, durationMs, baselineDurationMs, maxCalls, rounds = 4, warmupMs = 5000, databaseCpu = null }) {
  // Both sides warmed up under the measured load before anything is counted (`warmupMs` of console
  // calls, a quarter of it of each kind of direct spawn): a handful of calls left the console's hot
  // paths to V8's first tiers, and the first round then gave 0.55–0.60× against 0.63–0.87× for the
  // rounds after it (2026-12-07, eight rounds, two runs).
  for (let i = 0; i < clients; i++) await request(server.baseUrl, "POST", `/api/v1/skills/${skill}/calls`, { args: {}, wait: true });
  if (warmupMs > 0) {
    await runConcurrently(clients, warmupMs, maxCalls, () => request(server.baseUrl, "POST", `/api/v1/skills/${skill}/calls`, { args: {}, wait: true }).catch(() => undefined));
    await spawner.load("sandboxed", skill, clients, warmupMs / 4, maxCalls);
    await spawner.load("plain", skill, clients, warmupMs / 4, maxCalls);
  }
  const rss0 = { console: readRss(server.pid), worker: readRss(server.workerPid) };
  let errors = 0;
  let succeeded = 0;
  const latencies = [];
  const errorSamples = new Map();
  const countError = (kind) => {
    errors++;
    errorSamples.set(kind, (errorSamples.get(kind) ?? 0) + 1);
  };
  // RSS of both processes every second while the clients run, to tell growth from a one-off step.
  const rssSamples = [];
  const consoleRound = async (roundMs, roundCalls) => {
    const cpuBefore = consoleCpu(server);
    const databaseBefore = databaseCpu?.() ?? 0;
    const benchCpuBefore = ownCpu();
    const succeededBefore = succeeded;
    const sampler = setInterval(() => rssSamples.push({ console: readRss(server.pid).rssMiB, worker: readRss(server.workerPid).rssMiB }), 1000);
    const run = await runConcurrently(clients, roundMs, roundCalls, async () => {
      try {
        const answer = await request(server.baseUrl, "POST", `/api/v1/skills/${skill}/calls`, { args: {}, wait: true });
        latencies.push(answer.ms);
        if (answer.status === 200 && answer.json?.call?.status === "succeeded") succeeded++;
        else countError(`${answer.status} ${answer.json?.call?.status ?? answer.json?.error?.code ?? ""}`.trim());
      } catch (error) {
        countError(String(error.message).slice(0, 80));
      }
    });
    clearInterval(sampler);
    return { elapsedMs: run.elapsedMs, done: succeeded - succeededBefore, cpu: minus(consoleCpu(server), cpuBefore), benchCpu: minus(ownCpu(), benchCpuBefore), databaseMs: (databaseCpu?.() ?? 0) - databaseBefore };
  };
  const spawnerRss0 = spawner.rss();
  // The console's calls and the direct spawns alternate in `rounds` rounds (console, sandboxed, plain
  // each time) rather than running as three blocks: whatever else the host does drifts over a minute
  // (the sandboxed baseline moved between 95 and 176 spawns/s from one run to the next), and a block
  // design puts all of a drift on one side of the ratio.
  const consoleRuns = [];
  const sandboxedRuns = [];
  const plainRuns = [];
  for (let round = 0; round < rounds; round++) {
    consoleRuns.push(await consoleRound(durationMs / rounds, Math.ceil(maxCalls / rounds)));
    sandboxedRuns.push(await directLoad(spawner, "sandboxed", skill, clients, baselineDurationMs / rounds, Math.ceil(maxCalls / rounds)));
    plainRuns.push(await directLoad(spawner, "plain", skill, clients, baselineDurationMs / rounds, Math.ceil(maxCalls / rounds)));
  }
  const spawnerRss1 = spawner.rss();
  const sum = (runs, pick) => runs.reduce((total, run) => total + pick(run), 0);
  const cpu = Object.fromEntries(Object.keys(consoleRuns[0].cpu).map((key) => [key, sum(consoleRuns, (run) => run.cpu[key])]));
  const consoleRun = { elapsedMs: sum(consoleRuns, (run) => run.elapsedMs) };
  const totalOf = (runs) => ({
    done: sum(runs, (run) => run.done),
    errors: sum(runs, (run) => run.errors),
    elapsedMs: sum(runs, (run) => run.elapsedMs),
    latencies: runs.flatMap((run) => run.latencies),
    cpu: { selfMs: sum(runs, (run) => run.cpu.selfMs), childrenMs: sum(runs, (run) => run.cpu.childrenMs) },
  });
  const sandboxed = totalOf(sandboxedRuns);
  const plain = totalOf(plainRuns);
  const benchCpu = { selfMs: sum(consoleRuns, (run) => run.benchCpu.selfMs) };
  const rss1 = { console: readRss(server.pid), worker: readRss(server.workerPid) };
  const workerAlive = Number.isFinite(readRss(server.workerPid).rssMiB);
  const roundRatios = consoleRuns.map((run, i) => run.done / run.elapsedMs / (sandboxedRuns[i].done / sandboxedRuns[i].elapsedMs));

  const size = await spawnerSizeCost(spawner, skill, readRss(server.workerPid).rssMiB);

  const calls = Math.max(1, succeeded + errors);
  const perCall = {
    console: cpu.console / calls,
    worker: cpu.worker / calls,
    children: cpu.workerChildren / calls,
    consoleChildren: cpu.consoleChildren / calls,
  };
  const consolePerCall = perCall.console + perCall.worker + perCall.children + perCall.consoleChildren;
  const databasePerCall = databaseCpu ? sum(consoleRuns, (run) => run.databaseMs) / calls : null;
  const perSpawn = (load) => (load.cpu.selfMs + load.cpu.childrenMs) / Math.max(1, load.done + load.errors);
  const callsPerSecond = (succeeded * 1000) / consoleRun.elapsedMs;
  const spawnsPerSecond = (load) => (load.done * 1000) / load.elapsedMs;
  const throughputRatio = callsPerSecond / spawnsPerSecond(sandboxed);
  const cpuRatio = consolePerCall / perSpawn(sandboxed);
  // Growth after the first quarter of the calls: the phase starts right after others (the loader's
  // garbage may still be collected), so start → end alone can hide or fake a trend.
  const quarter = rssSamples[Math.floor(rssSamples.length / 4)];
  const callsAfterQuarter = Math.max(1, Math.round((succeeded * 3) / 4));
  const rssFlat = (key, end) => {
    const from = quarter?.[key];
    if (!Number.isFinite(from) || !Number.isFinite(end)) return "flat: –";
    return `flat: ${end - from >= 0 ? "+" : ""}${fmt(end - from)} MiB from ¼ to end (${fmt(((end - from) * 1024) / callsAfterQuarter)} KiB per call)`;
  };
  const rows = [
    { bench: "throughput", metric: `${clients} clients, succeeded calls/s vs ${clients} concurrent direct sandboxed spawns/s`, server: callsPerSecond, baseline: spawnsPerSecond(sandboxed), unit: "/s", better: "higher", target: `≥ 0.8×: ${throughputRatio >= 0.8 ? "met" : "not met"}` },
    { bench: "throughput", metric: "errors (non-200 or not succeeded) vs failed direct spawns", server: errors, baseline: sandboxed.errors, unit: "", noRatio: true, target: `0: ${errors === 0 ? "met" : "not met"}` },
    { bench: "throughput", metric: "CPU per call: console + worker + the call's processes vs per direct sandboxed spawn (baseline process + children)", server: consolePerCall, baseline: perSpawn(sandboxed), unit: "ms", target: `≤ 2×: ${cpuRatio <= 2 ? "met" : "not met"}` },
    ...(databaseCpu
      ? [{ bench: "throughput", metric: "CPU per call with the database server's own: console + worker + the call's processes + PostgreSQL backends vs per direct sandboxed spawn", server: consolePerCall + databasePerCall, baseline: perSpawn(sandboxed), unit: "ms" }]
      : []),
    { bench: "throughput", metric: "CPU per call without the skill's processes: console + worker vs baseline process alone", server: perCall.console + perCall.worker, baseline: sandboxed.cpu.selfMs / Math.max(1, sandboxed.done + sandboxed.errors), unit: "ms" },
    { bench: "throughput", metric: `${clients} clients, call latency p50 vs direct sandboxed spawn p50 (${clients} at once)`, server: percentile(latencies, 50), baseline: percentile(sandboxed.latencies, 50), unit: "ms" },
    { bench: "throughput", metric: `${clients} clients, call latency p95 vs direct sandboxed spawn p95`, server: percentile(latencies, 95), baseline: percentile(sandboxed.latencies, 95), unit: "ms" },
    { bench: "throughput", metric: "console server RSS end vs start (MiB)", server: rss1.console.rssMiB, baseline: rss0.console.rssMiB, unit: "MiB", ratioLabel: "end ÷ start", target: rssFlat("console", rss1.console.rssMiB) },
    { bench: "throughput", metric: "worker RSS end vs start (MiB)", server: rss1.worker.rssMiB, baseline: rss0.worker.rssMiB, unit: "MiB", ratioLabel: "end ÷ start", target: rssFlat("worker", rss1.worker.rssMiB) },
    { bench: "sandbox", metric: `${clients} concurrent direct spawns/s: sandboxed vs plain`, server: spawnsPerSecond(sandboxed), baseline: spawnsPerSecond(plain), unit: "/s", better: "higher" },
    { bench: "sandbox", metric: `CPU per direct spawn at ${clients} at once (baseline process + children): sandboxed vs plain`, server: perSpawn(sandboxed), baseline: perSpawn(plain), unit: "ms" },
  ];
  if (size) {
    rows.push(
      { bench: "sandbox", metric: `sequential direct sandboxed spawn p50 from a baseline process the worker's size (${fmt(size.heavyRss)} MiB) vs lean (${fmt(size.leanRss)} MiB)`, server: size.heavy.p50, baseline: size.lean.p50, unit: "ms" },
      { bench: "sandbox", metric: "CPU per sequential direct sandboxed spawn (baseline process + children): worker-sized vs lean", server: size.heavy.cpuMs, baseline: size.lean.cpuMs, unit: "ms" },
    );
  }
  const notes = [
    `throughput: console ${succeeded} calls (${errors} errors) in ${(consoleRun.elapsedMs / 1000).toFixed(1)} s; direct sandboxed ${sandboxed.done} spawns (${sandboxed.errors} failed) and plain ${plain.done} (${plain.errors} failed) in ${(baselineDurationMs / 1000).toFixed(0)} s each; in ${rounds} alternating rounds, whose calls/s ÷ spawns/s were ${roundRatios.map((ratio) => ratio.toFixed(2)).join(", ")}`,
    `throughput: CPU per call (ms): console ${perCall.console.toFixed(1)}, worker ${perCall.worker.toFixed(1)}, the call's processes ${perCall.children.toFixed(1)}, console's children ${perCall.consoleChildren.toFixed(1)}${databaseCpu ? `, PostgreSQL server ${databasePerCall.toFixed(1)}` : ""}; the bench's own HTTP clients ${(benchCpu.selfMs / calls).toFixed(1)} (not counted). Per direct sandboxed spawn: baseline process ${(sandboxed.cpu.selfMs / Math.max(1, sandboxed.done)).toFixed(1)} + children ${(sandboxed.cpu.childrenMs / Math.max(1, sandboxed.done)).toFixed(1)}; per plain spawn: baseline process ${(plain.cpu.selfMs / Math.max(1, plain.done)).toFixed(1)} + children ${(plain.cpu.childrenMs / Math.max(1, plain.done)).toFixed(1)}; baseline process RSS ${fmt(spawnerRss0.rssMiB)} → ${fmt(spawnerRss1.rssMiB)} MiB`,
    `throughput: console pid ${server.pid} RSS ${fmt(rss0.console.rssMiB)} → ${fmt(rss1.console.rssMiB)} MiB (peak VmHWM ${fmt(rss1.console.hwmMiB)}); worker pid ${server.workerPid} RSS ${fmt(rss0.worker.rssMiB)} → ${fmt(rss1.worker.rssMiB)} MiB (peak ${fmt(rss1.worker.hwmMiB)})${workerAlive ? "" : " — the worker was gone at the end (restarted?)"}`,
  ];
  if (rssSamples.length >= 4) {
    const at = (fraction) => rssSamples[Math.min(rssSamples.length - 1, Math.round(fraction * (rssSamples.length - 1)))];
    const course = (key) => [0, 0.25, 0.5, 0.75, 1].map((fraction) => fmt(at(fraction)[key])).join(" → ");
    notes.push(`throughput: RSS at 0, ¼, ½, ¾ and the end of the ${(consoleRun.elapsedMs / 1000).toFixed(0)} s of calls (MiB): console ${course("console")}; worker ${course("worker")}`);
  }
  if (errorSamples.size > 0) notes.push(`throughput: errors by kind: ${[...errorSamples].map(([kind, n]) => `${kind} ×${n}`).join("; ")}`);
  return { rows, notes, stats: { units: calls, unit: "call" }, figures: { callsPerSecond, cpuPerCallMs: consolePerCall, databaseCpuPerCallMs: databasePerCall, errors } };
}
