/**
 * Sustained throughput benchmark: C concurrent clients (default 16) doing trivial safe calls
 * (`bench_noop`, wait: true) back to back for a fixed duration, bounded in count. Reports calls/s,
 * errors (non-200 answers or calls that did not succeed), per-call latency, and the RSS of the Node
 * process serving HTTP at start and end (/proc/<pid>/status VmRSS, and the VmHWM peak), and its CPU
 * time per call (utime + stime, which stays meaningful when other work shares the machine). Baseline:
 * C concurrent direct spawns of the same script from this process, spawns/s and CPU time per spawn.
 */
import { request } from "./lib/http.mjs";
import { ownCpuMs, readCpuMs, readRss } from "./lib/server.mjs";
import { runConcurrently, spawnDirect } from "./lib/spawn.mjs";
import { fmt, percentile } from "./lib/stats.mjs";

/** Runs the throughput benchmark; returns `{ rows, notes }`. */
export async function benchThroughput({ server, skill, clients, durationMs, baselineDurationMs, maxCalls }) {
  const rssStart = readRss(server.pid);
  const serverCpu0 = readCpuMs(server.pid);
  let errors = 0;
  let succeeded = 0;
  const latencies = [];
  const errorSamples = new Map();
  const consoleRun = await runConcurrently(clients, durationMs, maxCalls, async () => {
    try {
      const answer = await request(server.baseUrl, "POST", `/api/v1/skills/${skill.name}/calls`, { args: {}, wait: true });
      latencies.push(answer.ms);
      if (answer.status === 200 && answer.json?.call?.status === "succeeded") succeeded++;
      else {
        errors++;
        const key = `${answer.status} ${answer.json?.call?.status ?? answer.json?.error?.code ?? ""}`;
        errorSamples.set(key, (errorSamples.get(key) ?? 0) + 1);
      }
    } catch (error) {
      errors++;
      errorSamples.set(String(error.message).slice(0, 80), (errorSamples.get(String(error.message).slice(0, 80)) ?? 0) + 1);
    }
  });
  const rssEnd = readRss(server.pid);
  const serverCpuMs = readCpuMs(server.pid) - serverCpu0;
  const ownCpu0 = ownCpuMs();

  let spawned = 0;
  let spawnErrors = 0;
  const baselineRun = await runConcurrently(clients, baselineDurationMs, maxCalls, async () => {
    try {
      const run = await spawnDirect(skill, "{}");
      if (run.code === 0) spawned++;
      else spawnErrors++;
    } catch {
      spawnErrors++;
    }
  });

  const ownCpu = ownCpuMs() - ownCpu0;
  const callsPerSecond = (succeeded * 1000) / consoleRun.elapsedMs;
  const spawnsPerSecond = (spawned * 1000) / baselineRun.elapsedMs;
  const rows = [
    { bench: "throughput", metric: `${clients} clients, succeeded calls/s vs direct spawns/s`, server: callsPerSecond, baseline: spawnsPerSecond, unit: "/s", better: "higher" },
    { bench: "throughput", metric: "CPU time per call (server process) vs per direct spawn (bench process)", server: serverCpuMs / Math.max(1, succeeded + errors), baseline: ownCpu / Math.max(1, spawned + spawnErrors), unit: "ms", better: "lower" },
    { bench: "throughput", metric: `${clients} clients, call latency p50`, server: percentile(latencies, 50), baseline: null, unit: "ms", better: "lower" },
    { bench: "throughput", metric: `${clients} clients, call latency p95`, server: percentile(latencies, 95), baseline: null, unit: "ms", better: "lower" },
    { bench: "throughput", metric: "errors (non-200 or not succeeded)", server: errors, baseline: spawnErrors, unit: "", better: "lower", noRatio: true },
    { bench: "throughput", metric: "server RSS start → end (MiB)", server: rssEnd.rssMiB, baseline: rssStart.rssMiB, unit: "MiB", better: "lower", ratioLabel: "end ÷ start" },
  ];
  const notes = [
    `throughput: console ${succeeded} calls in ${(consoleRun.elapsedMs / 1000).toFixed(1)} s, baseline ${spawned} spawns in ${(baselineRun.elapsedMs / 1000).toFixed(1)} s; server pid ${server.pid} RSS ${fmt(rssStart.rssMiB)} → ${fmt(rssEnd.rssMiB)} MiB (peak VmHWM ${fmt(rssEnd.hwmMiB)} MiB)`,
  ];
  if (errorSamples.size > 0) notes.push(`throughput: errors by kind: ${[...errorSamples].map(([kind, n]) => `${kind} ×${n}`).join("; ")}`);
  return { rows, notes };
}
