/**
 * Event-loop stalls of hostile requests (`npm run bench -- --only=stalls`, also in the full run; issue 10
 * point 1: no request may block the console's event loop for more than 50 ms on this machine, whatever
 * its body within the limits). One request at a time against an otherwise idle console whose server
 * process runs bench/lib/loop-delay-preload.cjs with a 100 ms window: for each, the worst event-loop
 * delay (monitorEventLoopDelay) seen from just before the request was sent to just after its answer
 * arrived, beside the idle console's own worst window. The bodies are the ones that froze the console
 * for seconds (2.7 million `{}`, 600,000 keys, 90,000 numbers against `maxItems: 10`) and the largest
 * the limits accept (an 8 MB string, 99,990 keys, 99,990 strings of 80 characters), run to their end;
 * then the reads that return those calls, an MCP tools/call of 99,990 keys, a persona glob of many
 * stars matched against a 64-character skill name, and a worker token's registration of 50,000 skills
 * with the listings that show them.
 */
import fs from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { request } from "./lib/http.mjs";
import { BENCH_ADMIN } from "./lib/server.mjs";
import { signIn } from "./soak.mjs";

/** Skills the hoarding worker reports: the most one worker may (lib/validation/worker-requests.ts MAX_REPORTED_SKILLS). */
const REPORTED_SKILLS = 50_000;

/** Longest skill name the loader accepts (lib/validation/manifest-schema.ts SKILL_NAME_MAX_LENGTH). */
const LONG_NAME_LENGTH = 64;

/** The skills this phase calls: written into `root` by the bench before the console starts. */
export function writeStallSkills(root) {
  const skills = [
    { folder: "open", manifest: { name: "stall_open", schema: { type: "object" } } },
    { folder: "picky", manifest: { name: "stall_picky", schema: { type: "object", properties: { items: { type: "array", maxItems: 10 } } } } },
    { folder: "long", manifest: { name: "a".repeat(LONG_NAME_LENGTH), schema: { type: "object", properties: {} } } },
  ];
  for (const { folder, manifest } of skills) {
    fs.mkdirSync(`${root}/${folder}`, { recursive: true });
    fs.writeFileSync(
      `${root}/${folder}/skill.json`,
      JSON.stringify({ description: "Bench: reads its args and answers {}.", entry: "run.sh", env_allow: [], class: "safe", category: "bench", ...manifest }),
    );
    fs.writeFileSync(`${root}/${folder}/run.sh`, '#!/bin/sh\ncat >/dev/null\necho "{}"\n', { mode: 0o755 });
  }
  return skills.map((skill) => skill.manifest.name);
}

function readWindows(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Runs the phase; returns `{ rows, notes }`. */
export async function benchStalls({ server, loopDelayFile, intervalMs }) {
  const { baseUrl } = server;
  const admin = await signIn(baseUrl, BENCH_ADMIN.email, BENCH_ADMIN.password);
  const persona = await request(baseUrl, "POST", "/api/v1/personas", { name: "stall_starry", permission_mode: "read-only", skills: { allow: [`${"a*".repeat(40)}c`] } }, { headers: admin });
  if (persona.status !== 201) throw new Error(`creating the glob persona answered ${persona.status}: ${persona.text}`);

  // The idle console first: its worst window is what a request is compared with.
  await delay(10 * intervalMs);
  const idleFrom = Date.now();
  await delay(20 * intervalMs);
  const idle = readWindows(loopDelayFile).filter((window) => window.at > idleFrom);
  const idleWorst = Math.max(...idle.map((window) => window.maxMs));

  const measured = [];
  const notes = [];
  const measure = async (label, expected, send) => {
    await delay(3 * intervalMs);
    const from = Date.now();
    const answer = await send();
    const answeredAt = Date.now();
    await delay(2 * intervalMs + 50);
    // A window ends at `at`: it overlaps the request when it ends after the request began and began before it ended.
    const windows = readWindows(loopDelayFile).filter((window) => window.at > from && window.at - intervalMs <= answeredAt);
    const worst = Math.max(...windows.map((window) => window.maxMs));
    const gcPause = Math.max(0, ...windows.map((window) => window.gcMaxMs ?? 0));
    measured.push({ label, status: answer.status, expected, worst, gcPause, ms: answer.ms, id: answer.json?.call?.id ?? null });
    return answer;
  };
  const call = (skill, body) => () => request(baseUrl, "POST", `/api/v1/skills/${skill}/calls`, body, { rawBody: true, timeoutMs: 300_000 });

  await measure("2.7 million {} (8.1 MB), refused before parsing", 413, call("stall_picky", `{"args":{"items":[${Array(2_700_000).fill("{}").join(",")}]}}`));
  await measure("600,000 keys, refused before parsing", 413, call("stall_open", `{"args":{${Array.from({ length: 600_000 }, (_, i) => `"k${i}":0`).join(",")}}}`));
  await measure("90,000 numbers against maxItems 10", 400, call("stall_picky", `{"args":{"items":[${Array(90_000).fill("7").join(",")}]}}`));
  await measure("nested 200 levels deep", 400, call("stall_open", `{"args":${"[".repeat(200)}${"]".repeat(200)}}`));
  const bigString = await measure("one 8 MB string, run to its end", 200, call("stall_open", `{"args":{"s":"${"x".repeat(8_300_000)}"},"wait":true}`));
  const manyKeys = await measure("99,990 keys, run to its end", 200, call("stall_open", `{"args":{${Array.from({ length: 99_990 }, (_, i) => `"k${i}":0`).join(",")}},"wait":true}`));
  await measure("99,990 strings of 80 characters (8.2 MB), run to its end", 200, call("stall_open", `{"args":{"a":[${Array.from({ length: 99_990 }, () => `"${"y".repeat(80)}"`).join(",")}]},"wait":true}`));
  for (const [label, answer] of [
    ["GET the 8 MB string's call", bigString],
    ["GET the 99,990 keys' call", manyKeys],
  ]) {
    const id = answer.json?.call?.id;
    if (id) await measure(label, 200, () => request(baseUrl, "GET", `/api/v1/calls/${id}`));
  }
  await measure("GET /api/v1/calls?limit=20 (the calls above among them)", 200, () => request(baseUrl, "GET", "/api/v1/calls?limit=20", undefined, { timeoutMs: 300_000 }));
  await measure("MCP tools/call of 99,990 keys, run to its end", 200, () =>
    request(
      baseUrl,
      "POST",
      "/api/mcp",
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stall_open","arguments":{${Array.from({ length: 99_990 }, (_, i) => `"k${i}":0`).join(",")}}}}`,
      { rawBody: true, timeoutMs: 300_000, headers: { accept: "application/json, text/event-stream" } },
    ),
  );
  await measure("persona YAML import of 20,000 keys (184 KiB; the YAML library's unique-key check is quadratic)", 400, () =>
    request(baseUrl, "POST", "/api/v1/personas/import", Array.from({ length: 20_000 }, (_, i) => `k${i}: v`).join("\n"), { rawBody: true, timeoutMs: 300_000, headers: { ...admin, "content-type": "text/yaml" } }),
  );
  await measure(`persona glob ${"a*".repeat(40)}c against a ${LONG_NAME_LENGTH}-character name`, 403, () =>
    request(baseUrl, "POST", `/api/v1/skills/${"a".repeat(LONG_NAME_LENGTH)}/calls`, { args: {}, persona: "stall_starry" }),
  );

  // A worker token's registration of the most skills a worker may report, then the listings of them.
  const token = await request(baseUrl, "POST", "/api/v1/worker-tokens", { name: "stall-hoarder" }, { headers: admin });
  if (token.status !== 201) throw new Error(`creating a worker token answered ${token.status}: ${token.text}`);
  const none = { by: "none", value: null };
  const registration = {
    name: "stall-hoarder",
    labels: [],
    host: "bench",
    version: "bench",
    pid: null,
    concurrency: 1,
    sandbox: { requested: "none", mode: "none", warning: null, uid: 65534, limits: { memory: none, pids: none, cpu: none }, kill: "process-group" },
    skills: Array.from({ length: REPORTED_SKILLS }, (_, i) => ({ name: `hoarded-${String(i).padStart(5, "0")}-${"x".repeat(100)}`, digest: "a".repeat(64), available: i % 2 === 0, reason: i % 2 === 0 ? null : "no" })),
  };
  const worker = { authorization: `Bearer ${token.json.token}` };
  const registered = await measure(`worker registration of ${REPORTED_SKILLS.toLocaleString("en")} skills (${(JSON.stringify(registration).length / 1e6).toFixed(1)} MB)`, 201, () =>
    request(baseUrl, "POST", "/api/v1/workers/register", registration, { timeoutMs: 300_000, headers: worker }),
  );
  await measure(`GET /api/v1/workers (one worker holding ${REPORTED_SKILLS.toLocaleString("en")} skills)`, 200, () => request(baseUrl, "GET", "/api/v1/workers", undefined, { headers: admin, timeoutMs: 300_000 }));
  const workerId = registered.json?.worker?.id;
  if (workerId) {
    await measure("GET /api/v1/workers/{id}/skills?limit=500 (its middle page)", 200, () =>
      request(baseUrl, "GET", `/api/v1/workers/${workerId}/skills?limit=500&after=hoarded-25000`, undefined, { headers: admin, timeoutMs: 300_000 }),
    );
    await request(baseUrl, "DELETE", `/api/v1/workers/${workerId}`, undefined, { headers: worker });
  }

  // A hostile worker's largest reports for a call it claimed: 5,000 lines of 3,000 characters, then a
  // finish with a 4 MB result and 5,000 more lines, and the read of that call.
  const holders = await request(baseUrl, "GET", "/api/v1/skills/stall_open/workers", undefined, { headers: admin });
  const reporter = await request(baseUrl, "POST", "/api/v1/workers/register", { ...registration, name: "stall-reporter", skills: [{ name: "stall_open", digest: holders.json?.digest, available: true, reason: null }] }, { headers: worker });
  const reporterId = reporter.json?.worker?.id;
  const target = await request(baseUrl, "POST", "/api/v1/skills/stall_open/calls", { args: {}, target: "stall-reporter", wait: false });
  const claimed = reporterId ? await request(baseUrl, "POST", `/api/v1/workers/${reporterId}/claim`, { capacity: 1 }, { headers: worker, timeoutMs: 60_000 }) : null;
  const callId = claimed?.json?.calls?.[0]?.callId;
  if (callId && callId === target.json?.call?.id) {
    const lines = (from, width) => Array.from({ length: 5000 }, (_, i) => ({ seq: from + i, at: new Date().toISOString(), stream: "stderr", line: "e".repeat(width) }));
    const events = { events: lines(1, 3000) };
    await measure(`worker events report of 5,000 lines (${(JSON.stringify(events).length / 1e6).toFixed(1)} MB)`, 204, () => request(baseUrl, "POST", `/api/v1/workers/${reporterId}/calls/${callId}/events`, events, { headers: worker, timeoutMs: 300_000 }));
    const finish = { status: "succeeded", exitCode: 0, result: JSON.stringify({ r: "r".repeat(4_000_000) }), error: null, durationMs: 1, stderrTruncated: false, events: lines(5001, 1000) };
    await measure(`worker finish report of a 4 MB result and 5,000 lines (${(JSON.stringify(finish).length / 1e6).toFixed(1)} MB)`, 200, () => request(baseUrl, "POST", `/api/v1/workers/${reporterId}/calls/${callId}/finish`, finish, { headers: worker, timeoutMs: 300_000 }));
    await measure("GET that call (20 MB of stderr and result sent, the console keeps what SKILL_STDERR_LIMIT_BYTES allows)", 200, () => request(baseUrl, "GET", `/api/v1/calls/${callId}`, undefined, { timeoutMs: 300_000 }));
    // A result past SKILL_STDOUT_LIMIT_BYTES beside the lines: 31 MB of é stalled the loop 275 ms in toString and JSON.parse.
    const another = await request(baseUrl, "POST", "/api/v1/skills/stall_open/calls", { args: {}, target: "stall-reporter", wait: false });
    const claimedAgain = await request(baseUrl, "POST", `/api/v1/workers/${reporterId}/claim`, { capacity: 1 }, { headers: worker, timeoutMs: 60_000 });
    const anotherId = claimedAgain?.json?.calls?.[0]?.callId;
    if (anotherId && anotherId === another.json?.call?.id) {
      const oversized = { status: "succeeded", exitCode: 0, result: JSON.stringify({ r: "é".repeat(15_000_000) }), error: null, durationMs: 1, stderrTruncated: false, events: [] };
      await measure(`worker finish report of a ${(Buffer.byteLength(JSON.stringify(oversized)) / 1e6).toFixed(0)} MB result of é (past SKILL_STDOUT_LIMIT_BYTES: the call fails)`, 200, () =>
        request(baseUrl, "POST", `/api/v1/workers/${reporterId}/calls/${anotherId}/finish`, oversized, { headers: worker, timeoutMs: 300_000 }),
      );
    } else notes.push(`stalls: the oversized finish report was not measured (claim answered ${claimedAgain?.status})`);
  } else notes.push(`stalls: the hostile worker's reports were not measured (claim answered ${claimed?.status}: ${claimed?.text?.slice(0, 200)})`);
  if (reporterId) await request(baseUrl, "DELETE", `/api/v1/workers/${reporterId}`, undefined, { headers: worker });

  const rows = measured.map((entry) => ({
    bench: "stalls",
    metric: `worst event-loop stall: ${entry.label} (answered ${entry.status}${entry.status === entry.expected ? "" : `, expected ${entry.expected}`}, in ${entry.ms.toFixed(0)} ms; longest GC pause meanwhile ${entry.gcPause.toFixed(0)} ms) vs the 50 ms of issue 10 point 1`,
    server: entry.worst,
    baseline: 50,
    unit: "ms",
    target: `≤ 50 ms: ${entry.worst <= 50 && entry.status === entry.expected ? "met" : "not met"}`,
  }));
  notes.unshift(
    `stalls: the idle console's worst ${intervalMs} ms window was ${idleWorst.toFixed(1)} ms (monitorEventLoopDelay, 10 ms resolution); each request was sent alone, ${3 * intervalMs} ms after the last, and measured over the windows from its sending to its answer`,
  );
  return { rows, notes };
}
