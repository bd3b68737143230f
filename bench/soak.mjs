/**
 * Soak benchmark (`npm run bench -- --only=soak`; issue 10 point 6): `clients` concurrent clients of
 * mixed traffic for `durationMs` (default 32 clients, 10 minutes) against one console and its local
 * worker — sandboxed calls answered when done, calls whose stderr is read live over server-sent
 * events, dual-sign calls that two approvers sign and that then run, loader reloads, and reads of the
 * call list, the audit trail and the skills — while a probe asks `GET /api/v1/skills` every 200 ms.
 * Reports the probe's p50/p95/p99 (against the same probe on the idle console just before), the worst
 * event-loop stall of the console's server process (bench/lib/loop-delay-preload.cjs:
 * monitorEventLoopDelay, worst second), RSS of the console and the worker at start and end, and every
 * error (any unexpected status or call end). Targets: 0 errors, RSS flat within 10% — read in the
 * steady state: the median RSS of the last minute against that of the minute after a one-minute
 * warm-up (the idle RSS before the soak is shown beside, without a target), with the heap's floor
 * after collections (a leak raises it).
 */
import fs from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { readEventStream, request } from "./lib/http.mjs";
import { BENCH_ADMIN, readRss } from "./lib/server.mjs";
import { fmt, median, percentile } from "./lib/stats.mjs";

/** Roles of the clients, in order, repeated: most traffic is calls; one client reloads. */
const ROLES = ["call", "call", "call", "stream", "approve", "read", "call", "stream", "approve", "read", "call", "reload"];

/** How long the reload client waits between reloads, in ms (a reload of the roots is the heaviest request). */
const RELOAD_PAUSE_MS = 20_000;

export async function signIn(baseUrl, email, password) {
  const login = await request(baseUrl, "POST", "/api/v1/auth/login", { email, password }, { headers: { authorization: null } });
  if (login.status !== 200) throw new Error(`signing in as ${email} answered ${login.status}: ${login.text}`);
  return { cookie: login.cookies.map((line) => line.split(";")[0]).join("; "), origin: baseUrl, authorization: null };
}

/** Creates the soak's persona (dual-sign) and two approvers; returns the admin's and the approvers' session headers. */
async function preparePeople(baseUrl) {
  const admin = await signIn(baseUrl, BENCH_ADMIN.email, BENCH_ADMIN.password);
  const persona = await request(baseUrl, "POST", "/api/v1/personas", { name: "soak_dual", permission_mode: "dual-sign-required", skills: { allow: ["soak_*"] } }, { headers: admin });
  if (persona.status !== 201) throw new Error(`creating the soak persona answered ${persona.status}: ${persona.text}`);
  const approvers = [];
  for (const name of ["soak-approver-a", "soak-approver-b"]) {
    const password = `${name}-password-0123`;
    const created = await request(baseUrl, "POST", "/api/v1/users", { email: `${name}@console.local`, password, role: "approver" }, { headers: admin });
    if (created.status !== 201) throw new Error(`creating ${name} answered ${created.status}: ${created.text}`);
    approvers.push(await signIn(baseUrl, `${name}@console.local`, password));
  }
  return { admin, approvers };
}

/** Polls a call until it ends; resolves its final record. */
async function untilEnded(baseUrl, callId, deadline) {
  for (;;) {
    const answer = await request(baseUrl, "GET", `/api/v1/calls/${callId}?events=0`);
    const status = answer.json?.call?.status;
    if (answer.status === 200 && ["succeeded", "failed", "timed_out", "cancelled", "interrupted", "expired", "denied"].includes(status)) return answer.json.call;
    if (Date.now() > deadline) throw new Error(`call ${callId} still ${status ?? answer.status} at the end`);
    await delay(50);
  }
}

/** Runs the soak; returns `{ rows, notes }`. */
export async function benchSoak({ server, clients, durationMs, loopDelayFile }) {
  const { baseUrl } = server;
  const people = await preparePeople(baseUrl);
  const errors = new Map();
  const counts = new Map();
  const fail = (what, detail) => errors.set(what, { count: (errors.get(what)?.count ?? 0) + 1, example: errors.get(what)?.example ?? detail });
  const done = (role) => counts.set(role, (counts.get(role) ?? 0) + 1);

  // The probe on the idle console first: the baseline.
  const idle = [];
  for (let i = 0; i < 100; i++) {
    idle.push((await request(baseUrl, "GET", "/api/v1/skills")).ms);
    await delay(20);
  }

  const rss0 = { console: readRss(server.pid), worker: readRss(server.workerPid) };
  const rssSamples = [];
  const sampler = setInterval(() => rssSamples.push({ at: Date.now(), console: readRss(server.pid).rssMiB, worker: readRss(server.workerPid).rssMiB }), 10_000);
  const startedAt = Date.now();
  const deadline = startedAt + durationMs;
  const stallsFrom = fs.existsSync(loopDelayFile) ? fs.readFileSync(loopDelayFile, "utf8").split("\n").filter(Boolean).length : 0;

  // Investigation aid (BENCH_HEAP_SNAPSHOT_DIR, see bench/lib/loop-delay-preload.cjs): a heap snapshot
  // of the console after the first minute and one at the end.
  const snapshots = process.env.BENCH_HEAP_SNAPSHOT_DIR;
  const warmSnapshot = snapshots ? setTimeout(() => process.kill(server.pid, "SIGUSR2"), Math.min(60_000, durationMs / 3)) : null;

  const probe = [];
  const probing = (async () => {
    while (Date.now() < deadline) {
      const answer = await request(baseUrl, "GET", "/api/v1/skills").catch((error) => ({ status: 0, ms: NaN, text: String(error) }));
      if (answer.status === 200) probe.push(answer.ms);
      else fail("probe GET /api/v1/skills", `${answer.status} ${answer.text.slice(0, 200)}`);
      await delay(200);
    }
  })();

  const act = {
    async call() {
      const answer = await request(baseUrl, "POST", "/api/v1/skills/bench_noop/calls", { args: {}, wait: true });
      if (answer.status !== 200 || answer.json?.call?.status !== "succeeded") fail("call bench_noop", `${answer.status} ${answer.json?.call?.status ?? answer.text.slice(0, 200)}`);
      else done("call");
    },
    async stream() {
      const started = await request(baseUrl, "POST", "/api/v1/skills/bench_stderr_ticker/calls", { args: { lines: 20, interval_ms: 20 }, wait: false });
      if (started.status !== 202) return fail("stream: start bench_stderr_ticker", `${started.status} ${started.text.slice(0, 200)}`);
      const { events } = await readEventStream(baseUrl, `/api/v1/calls/${started.json.call.id}/events`);
      const lines = events.filter((event) => event.event === "line" && JSON.parse(event.data).stream === "stderr").length;
      const end = events.find((event) => event.event === "end");
      if (!end || JSON.parse(end.data).call?.status !== "succeeded" || lines !== 20) fail("stream: events of bench_stderr_ticker", `${lines} stderr lines, end ${end?.data?.slice(0, 120) ?? "missing"}`);
      else done("stream");
    },
    async approve() {
      const requested = await request(baseUrl, "POST", "/api/v1/skills/soak_wipe/calls", { args: {}, persona: "soak_dual", wait: false }, { headers: people.admin });
      if (requested.status !== 202) return fail("approve: request soak_wipe", `${requested.status} ${requested.text.slice(0, 200)}`);
      const listed = await request(baseUrl, "GET", `/api/v1/approvals?callId=${requested.json.call.id}`);
      const approvalId = listed.json?.approvals?.[0]?.id;
      if (!approvalId) return fail("approve: find the approval", `${listed.status} ${listed.text.slice(0, 200)}`);
      for (const approver of people.approvers) {
        const signed = await request(baseUrl, "POST", `/api/v1/approvals/${approvalId}/sign`, {}, { headers: approver });
        if (signed.status !== 200) return fail("approve: sign", `${signed.status} ${signed.text.slice(0, 200)}`);
      }
      const ended = await untilEnded(baseUrl, requested.json.call.id, deadline + 60_000);
      if (ended.status !== "succeeded") fail("approve: the approved call", `${ended.status} ${ended.error ?? ""}`);
      else done("approve");
    },
    async read() {
      for (const path of ["/api/v1/calls?limit=20", "/api/v1/audit?limit=50", "/api/v1/skills", "/api/v1/approvals?status=pending"]) {
        const answer = await request(baseUrl, "GET", path);
        if (answer.status !== 200) fail(`read ${path}`, `${answer.status} ${answer.text.slice(0, 200)}`);
      }
      done("read");
    },
    async reload() {
      const answer = await request(baseUrl, "POST", "/api/v1/loader/reload", {}, { headers: people.admin, timeoutMs: 300_000 });
      if (answer.status !== 200) fail("reload", `${answer.status} ${answer.text.slice(0, 200)}`);
      else done("reload");
      await delay(RELOAD_PAUSE_MS);
    },
  };
  const workers = Array.from({ length: clients }, async (_, index) => {
    const role = ROLES[index % ROLES.length];
    while (Date.now() < deadline) {
      try {
        await act[role]();
      } catch (error) {
        fail(`${role}: exception`, error.message.slice(0, 200));
        await delay(100);
      }
    }
  });
  await Promise.all([...workers, probing]);
  clearInterval(sampler);
  clearTimeout(warmSnapshot);
  if (snapshots) {
    const before = fs.readdirSync(snapshots).length;
    process.kill(server.pid, "SIGUSR2");
    while (fs.readdirSync(snapshots).filter((name) => name.endsWith(".heapsnapshot")).length <= before) await delay(500);
  }
  const rss1 = { console: readRss(server.pid), worker: readRss(server.workerPid) };
  const seconds = fs.existsSync(loopDelayFile)
    ? fs
        .readFileSync(loopDelayFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .slice(stallsFrom)
        .map((line) => JSON.parse(line))
    : [];
  // "Flat" is read in the steady state: the minute after a warm-up (the heap and the allocator grow
  // to the load's working set first) against the last minute, as medians (a collection moves RSS by
  // tens of MiB between two samples).
  const warmUpS = Math.round(Math.min(60_000, durationMs / 5) / 1000);
  const firstFrom = startedAt + warmUpS * 1000;
  const lastFrom = startedAt + durationMs - Math.min(60_000, durationMs / 5);
  const inWindow = (at, from) => at >= from && at < from + Math.min(60_000, durationMs / 5);
  const steady = Object.fromEntries(
    ["console", "worker"].map((role) => [
      role,
      { first: median(rssSamples.filter((sample) => inWindow(sample.at, firstFrom)).map((sample) => sample[role])), last: median(rssSamples.filter((sample) => sample.at >= lastFrom).map((sample) => sample[role])) },
    ]),
  );
  const heapFloor = {
    first: Math.min(...seconds.filter((second) => inWindow(second.at, firstFrom) && second.heapUsedMiB !== undefined).map((second) => second.heapUsedMiB)),
    last: Math.min(...seconds.filter((second) => second.at >= lastFrom && second.heapUsedMiB !== undefined).map((second) => second.heapUsedMiB)),
  };
  const worst = seconds.reduce((top, second) => (second.maxMs > (top?.maxMs ?? -1) ? second : top), null);
  const errorCount = [...errors.values()].reduce((sum, entry) => sum + entry.count, 0);
  const growth = (start, end) => (end - start) / start;
  const flat = (start, end) => `flat within 10%: ${Math.abs(growth(start, end)) <= 0.1 ? "met" : "not met"} (${(100 * growth(start, end)).toFixed(1)}%)`;
  const rows = [
    { bench: "soak", metric: `probe GET /api/v1/skills p50 under ${clients} clients of mixed traffic vs the idle console`, server: percentile(probe, 50), baseline: percentile(idle, 50), unit: "ms" },
    { bench: "soak", metric: "probe p95 vs idle", server: percentile(probe, 95), baseline: percentile(idle, 95), unit: "ms" },
    { bench: "soak", metric: "probe p99 vs idle", server: percentile(probe, 99), baseline: percentile(idle, 99), unit: "ms" },
    // Under a load that keeps both cores busy the loop's delay is mostly queueing behind other requests'
    // work, not one request blocking it; what one request may block is measured by the stalls phase.
    { bench: "soak", metric: "worst event-loop delay of the console's server under this load (monitorEventLoopDelay, worst second) vs the median second's p99", server: worst?.maxMs ?? NaN, baseline: percentile(seconds.map((second) => second.p99Ms), 50), unit: "ms" },
    { bench: "soak", metric: "errors (unexpected statuses and call ends)", server: errorCount, baseline: 0, unit: "", noRatio: true, target: `0: ${errorCount === 0 ? "met" : "not met"}` },
    { bench: "soak", metric: `console server RSS: median of the last minute vs median of the minute after a ${warmUpS} s warm-up (MiB)`, server: steady.console.last, baseline: steady.console.first, unit: "MiB", ratioLabel: "last ÷ first", target: flat(steady.console.first, steady.console.last) },
    { bench: "soak", metric: `worker RSS: median of the last minute vs median of the minute after a ${warmUpS} s warm-up (MiB)`, server: steady.worker.last, baseline: steady.worker.first, unit: "MiB", ratioLabel: "last ÷ first", target: flat(steady.worker.first, steady.worker.last) },
    { bench: "soak", metric: "console server heap used after collection (lowest of the last minute vs lowest of the minute after the warm-up; a leak raises it)", server: heapFloor.last, baseline: heapFloor.first, unit: "MiB", ratioLabel: "last ÷ first" },
    { bench: "soak", metric: "console server RSS at the end vs idle before the soak (MiB)", server: rss1.console.rssMiB, baseline: rss0.console.rssMiB, unit: "MiB", ratioLabel: "end ÷ idle" },
    { bench: "soak", metric: "worker RSS at the end vs idle before the soak (MiB)", server: rss1.worker.rssMiB, baseline: rss0.worker.rssMiB, unit: "MiB", ratioLabel: "end ÷ idle" },
  ];
  const notes = [
    `soak: ${clients} clients for ${(durationMs / 1000).toFixed(0)} s (${ROLES.slice(0, Math.min(clients, ROLES.length)).join(", ")}, repeated): ${[...counts].map(([role, n]) => `${n} ${role}`).join(", ")}; ${probe.length} probes`,
    `soak: event loop per second (ms): worst max ${fmt(worst?.maxMs ?? NaN)} at ${worst ? new Date(worst.at).toISOString() : "?"}, median of the seconds' p99 ${fmt(percentile(seconds.map((second) => second.p99Ms), 50))}, seconds over 50 ms: ${seconds.filter((second) => second.maxMs > 50).length} of ${seconds.length}`,
    `soak: console heap every 10 s (MiB used/total, external, array buffers): ${seconds.filter((_, i) => i % 10 === 0).map((second) => `${fmt(second.heapUsedMiB)}/${fmt(second.heapTotalMiB)} ${fmt(second.externalMiB)} ${fmt(second.arrayBuffersMiB)}`).join(" → ")}`,
    `soak: garbage collection: worst pause ${fmt(Math.max(...seconds.map((second) => second.gcMaxMs ?? 0)))} ms, ${fmt(seconds.reduce((sum, second) => sum + (second.gcTotalMs ?? 0), 0) / 1000)} s in all over ${seconds.length} s`,
    `soak: RSS every 10 s (MiB): console ${rssSamples.map((sample) => fmt(sample.console)).join(" → ")}; worker ${rssSamples.map((sample) => fmt(sample.worker)).join(" → ")}`,
    errors.size === 0 ? "soak: no errors" : `soak: errors: ${[...errors].map(([what, entry]) => `${what} ×${entry.count} (e.g. ${entry.example})`).join("; ")}`,
  ];
  return { rows, notes };
}
