/**
 * Executor overhead benchmark: latency of one trivial call (`bench_noop`: sh reads stdin, prints
 * {"ok":true}) through `POST /api/v1/skills/bench_noop/calls` with `wait: true`, sequentially, against
 * spawning the same script directly from this process (own process group, stdin JSON, wait for exit
 * and closed pipes). After a warm-up, console calls and direct spawns alternate; p50/p95 of each. Also
 * reports the console's own `durationMs` (spawn to process group gone), which splits the overhead into
 * process handling and everything around it (HTTP, validation, database, timeline), and the medians
 * of the call's phases from its own timestamps (createdAt, startedAt, endedAt; ms resolution).
 */
import { request } from "./lib/http.mjs";
import { spawnDirect } from "./lib/spawn.mjs";
import { median, percentile } from "./lib/stats.mjs";

/** One console call of `skill` with empty args; throws unless it answered 200 and succeeded. */
export async function consoleCall(server, skillName, args = {}) {
  const answer = await request(server.baseUrl, "POST", `/api/v1/skills/${skillName}/calls`, { args, wait: true });
  if (answer.status !== 200 || answer.json?.call?.status !== "succeeded") {
    const error = new Error(`call answered ${answer.status} ${answer.json?.call?.status ?? ""}: ${answer.text.slice(0, 300)}`);
    error.answer = answer;
    throw error;
  }
  return answer;
}

/** One direct spawn of `skill` with "{}" on stdin; throws unless it printed {"ok":true} and exited 0. */
export async function directCall(skill) {
  const run = await spawnDirect(skill, "{}");
  if (run.code !== 0 || JSON.parse(run.stdout).ok !== true) throw new Error(`direct spawn exited ${run.code}: ${run.stdout}`);
  return run;
}

/** Runs the executor benchmark; returns `{ rows, notes }`. */
export async function benchExecutor({ server, skill, calls, warmup }) {
  for (let i = 0; i < warmup; i++) {
    await consoleCall(server, skill.name);
    await directCall(skill);
  }
  const viaConsole = [];
  const recorded = [];
  const direct = [];
  const phases = { accept: [], queue: [], run: [], finish: [] };
  for (let i = 0; i < calls; i++) {
    const answer = await consoleCall(server, skill.name);
    viaConsole.push(answer.ms);
    const call = answer.json.call;
    recorded.push(call.durationMs);
    const [created, started, ended] = [call.createdAt, call.startedAt, call.endedAt].map(Date.parse);
    phases.accept.push(created - answer.sentAt);
    phases.queue.push(started - created);
    phases.run.push(ended - started);
    phases.finish.push(answer.doneAt - ended);
    direct.push((await directCall(skill)).ms);
  }
  const rows = [
    { bench: "executor", metric: "call p50 (wait:true) vs direct spawn", server: percentile(viaConsole, 50), baseline: percentile(direct, 50), unit: "ms", better: "lower" },
    { bench: "executor", metric: "call p95 (wait:true) vs direct spawn", server: percentile(viaConsole, 95), baseline: percentile(direct, 95), unit: "ms", better: "lower" },
    { bench: "executor", metric: "console-recorded durationMs p50 (process part)", server: percentile(recorded, 50), baseline: percentile(direct, 50), unit: "ms", better: "lower" },
  ];
  const notes = [
    `executor: ${calls} sequential calls each after ${warmup} warm-up; call p50 ${percentile(viaConsole, 50).toFixed(1)} ms = process part ${percentile(recorded, 50).toFixed(1)} ms + around it ${(percentile(viaConsole, 50) - percentile(recorded, 50)).toFixed(1)} ms (HTTP, args validation, database writes, timeline)`,
    `executor: call phases (medians, ms-resolution server stamps): request → createdAt ${median(phases.accept).toFixed(1)} ms (HTTP in, args validation, insert) · createdAt → startedAt ${median(phases.queue).toFixed(1)} ms (slot, registry re-check, status update) · startedAt → endedAt ${median(phases.run).toFixed(1)} ms (entry re-check, spawn, process, timeline flush) · endedAt → response ${median(phases.finish).toFixed(1)} ms (final update, re-read, JSON, HTTP out)`,
  ];
  return { rows, notes };
}
