/**
 * Stderr latency benchmark: how long a stderr line takes from the skill's write to a client of the
 * call's event stream. `bench_stderr_ticker` waits `delay_ms`, then writes `lines` stderr lines
 * `interval_ms` apart, each starting with its own wall-clock write time (performance.timeOrigin +
 * now(), sub-ms). The call is started with `wait: false` and `GET /api/v1/calls/{id}/events` opened at
 * once; each line's latency is its SSE arrival time minus its write time. Also reported: the console's
 * own receive stamp (`at`, ms resolution: when the worker read the line) minus the write time. Each
 * line travels skill → worker (pipe, line splitter) → console (POST …/workers/{id}/calls/{id}/events,
 * one report in flight at a time) → SSE. Baseline: the same ticker spawned directly and sandboxed as
 * the worker spawns it (bench/lib/direct-spawn.ts, in the baseline process), latency measured when
 * startProcess hands that process the line — the earliest the worker could have it.
 */
import { readEventStream, request } from "./lib/http.mjs";
import { percentile, wallClockMs } from "./lib/stats.mjs";

const writeTimeOf = (line) => Number(line.slice(0, line.indexOf(" ")));

async function viaConsole(server, skill, args, streamServer = server) {
  const started = await request(server.baseUrl, "POST", `/api/v1/skills/${skill.name}/calls`, { args, wait: false });
  if (started.status !== 202) throw new Error(`starting the ticker answered ${started.status}: ${started.text.slice(0, 300)}`);
  const id = started.json.call.id;
  const { events, openedAt } = await readEventStream(streamServer.baseUrl, `/api/v1/calls/${id}/events`);
  const latencies = [];
  const serverReceive = [];
  let beforeOpen = 0;
  let end = null;
  for (const event of events) {
    if (event.event === "end") end = JSON.parse(event.data).call;
    if (event.event !== "line") continue;
    const data = JSON.parse(event.data);
    if (data.stream !== "stderr") continue;
    const written = writeTimeOf(data.line);
    if (written < openedAt) beforeOpen++;
    latencies.push(event.arrivedAt - written);
    serverReceive.push(Date.parse(data.at) - written);
  }
  if (end?.status !== "succeeded") throw new Error(`ticker call ended ${end?.status ?? "without an end event"}`);
  return { latencies, serverReceive, beforeOpen };
}

async function direct(spawner, skill, args) {
  const run = await spawner.sandboxed(skill.name, JSON.stringify(args), { stampedStderr: true });
  if (run.outcome.exitCode !== 0) throw new Error(`direct ticker ended ${run.outcome.end} (exit ${run.outcome.exitCode}): ${run.outcome.error ?? ""}`);
  return run.latencies;
}

/**
 * Runs the stderr latency benchmark; returns `{ rows, notes, figures: { p50Ms, p95Ms } }`. With
 * `streamServer` (another replica on the same PostgreSQL database) the calls start on `server` and their
 * event streams are read from `streamServer` (issue 11 point 2: lines reach it by LISTEN/NOTIFY and the
 * table); `label` names the rows' benchmark (default "stderr").
 */
export async function benchStderrLatency({ server, spawner, skill, lines, intervalMs, runs, streamServer = server, label = "stderr" }) {
  const args = { lines, interval_ms: intervalMs, delay_ms: 300 };
  await viaConsole(server, skill, { lines: 5, interval_ms: 1, delay_ms: 0 }, streamServer); // warm-up of the routes
  await direct(spawner, skill, { lines: 5, interval_ms: 1, delay_ms: 0 });
  const sse = [];
  const received = [];
  const pipe = [];
  let beforeOpen = 0;
  for (let i = 0; i < runs; i++) {
    const run = await viaConsole(server, skill, args, streamServer);
    sse.push(...run.latencies);
    received.push(...run.serverReceive);
    beforeOpen += run.beforeOpen;
    pipe.push(...(await direct(spawner, skill, args)));
  }
  const rows = [];
  for (const [name, p] of [["p50", 50], ["p95", 95], ["max", 100]]) {
    rows.push({ bench: label, metric: `write → SSE arrival ${name}${streamServer === server ? "" : " (stream from another replica)"} vs write → line read from a direct sandboxed spawn`, server: percentile(sse, p), baseline: percentile(pipe, p), unit: "ms", ...(streamServer !== server && p === 95 ? { target: `≤ 100 ms: ${percentile(sse, 95) <= 100 ? "met" : "not met"}` } : {}) });
  }
  rows.push({ bench: label, metric: "write → the worker's `at` stamp p50 (ms-truncated, so ±1 ms)", server: percentile(received, 50), baseline: null, unit: "ms" });
  const notes = [
    `${label}: ${runs} runs × ${lines} lines ${intervalMs} ms apart (${sse.length} console samples, ${pipe.length} direct samples); ${beforeOpen} lines were written before the SSE response opened`,
  ];
  return { rows, notes, figures: { p50Ms: percentile(sse, 50), p95Ms: percentile(sse, 95) } };
}
