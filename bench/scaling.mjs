/**
 * Scaling benchmark (issue 11 point 5): what a second replica and a second worker buy on PostgreSQL.
 * Two set-ups on one PostgreSQL cluster, each on a database of its own (so one's workers never claim
 * the other's calls):
 *   one: one console replica and its local worker, started under `taskset -c 0` (the call's processes
 *        inherit it), and PostgreSQL's server pinned to CPU 0 as well: the whole system on one core;
 *   two: two replicas, each with its local worker, one under `taskset -c 0` and one under `-c 1`, and
 *        PostgreSQL on both CPUs: the same system spread over two cores.
 * The same C clients (default 16) do trivial safe calls (`bench_noop`, wait: true) back to back; with two
 * replicas each request goes to the next replica in turn (a load balancer without sticky sessions: a call
 * made on one replica is often claimed by the other's worker, and its waiter learns the end over the bus).
 * The two set-ups alternate in `rounds` rounds (PostgreSQL re-pinned before each), so a drift of the
 * host's load falls on both. Reported: calls/s of each and their ratio, errors, CPU per call of the
 * replicas and workers (with the calls' processes), PostgreSQL's own CPU per call, latencies, and how
 * busy each set-up kept its cores. The bench's own HTTP clients are not pinned: with one core for the
 * system they have the other to themselves, with two they compete with it (the ratio is, if anything,
 * low).
 */
import { consoleCpu } from "./executor.mjs";
import { request } from "./lib/http.mjs";
import { pinPostgres, postgresCpuMs } from "./lib/postgres.mjs";
import { ownCpu, waitQuiet } from "./lib/server.mjs";
import { runConcurrently } from "./lib/spawn.mjs";
import { fmt, percentile } from "./lib/stats.mjs";

/** CPU (ms) so far of the replicas `servers`: consoles, workers and the calls' processes. */
function systemCpuMs(servers) {
  let total = 0;
  for (const server of servers) {
    const cpu = consoleCpu(server);
    total += cpu.console + cpu.consoleChildren + cpu.worker + cpu.workerChildren;
  }
  return total;
}

/**
 * One round of set-up `setup` ({ name, servers, cpus, cores }): PostgreSQL pinned to `setup.cpus`,
 * the replicas quiet, then C clients for `durationMs`. Resolves the round's counts and CPU deltas.
 */
async function round(setup, { cluster, skill, clients, durationMs, maxCalls }) {
  pinPostgres(cluster, setup.cpus);
  await waitQuiet(setup.servers.flatMap((server) => [server.pid, server.workerPid]), { maxMs: 30_000, quietMs: 10 });
  let next = 0;
  let succeeded = 0;
  const errors = new Map();
  const latencies = [];
  const cpu0 = systemCpuMs(setup.servers);
  const database0 = postgresCpuMs(cluster);
  const bench0 = ownCpu().selfMs;
  const run = await runConcurrently(clients, durationMs, maxCalls, async () => {
    const server = setup.servers[next++ % setup.servers.length];
    try {
      const answer = await request(server.baseUrl, "POST", `/api/v1/skills/${skill}/calls`, { args: {}, wait: true });
      latencies.push(answer.ms);
      if (answer.status === 200 && answer.json?.call?.status === "succeeded") succeeded++;
      else {
        const kind = `${answer.status} ${answer.json?.call?.status ?? answer.json?.error?.code ?? ""}`.trim();
        errors.set(kind, (errors.get(kind) ?? 0) + 1);
      }
    } catch (error) {
      const kind = String(error.message).slice(0, 80);
      errors.set(kind, (errors.get(kind) ?? 0) + 1);
    }
  });
  return {
    elapsedMs: run.elapsedMs,
    succeeded,
    errors,
    latencies,
    systemMs: systemCpuMs(setup.servers) - cpu0,
    databaseMs: postgresCpuMs(cluster) - database0,
    benchMs: ownCpu().selfMs - bench0,
  };
}

/** Sums the rounds of one set-up. */
function total(rounds) {
  const errors = new Map();
  for (const r of rounds) for (const [kind, n] of r.errors) errors.set(kind, (errors.get(kind) ?? 0) + n);
  const sum = (pick) => rounds.reduce((acc, r) => acc + pick(r), 0);
  const succeeded = sum((r) => r.succeeded);
  const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
  const calls = Math.max(1, succeeded + errorCount);
  const elapsedMs = sum((r) => r.elapsedMs);
  return {
    succeeded,
    errors,
    errorCount,
    elapsedMs,
    callsPerSecond: (succeeded * 1000) / elapsedMs,
    latencies: rounds.flatMap((r) => r.latencies),
    systemPerCall: sum((r) => r.systemMs) / calls,
    databasePerCall: sum((r) => r.databaseMs) / calls,
    benchPerCall: sum((r) => r.benchMs) / calls,
    // Share of the set-up's cores kept busy by the replicas, workers, calls and PostgreSQL.
    busy: (sum((r) => r.systemMs + r.databaseMs)) / elapsedMs,
  };
}

/**
 * Runs the scaling benchmark; returns `{ rows, notes, figures }`. `one` is the one-core set-up's replica
 * (server handle, pinned to CPU 0), `two` the two replicas pinned to CPUs 0 and 1; `cluster` their
 * PostgreSQL cluster (scripts/postgres-cluster.mjs). Durations are per set-up, split over `rounds`.
 */
export async function benchScaling({ cluster, one, two, skill, clients, durationMs, maxCalls, rounds = 4 }) {
  const setups = [
    { name: "one", servers: [one], cpus: "0", cores: 1 },
    { name: "two", servers: two, cpus: "0-1", cores: 2 },
  ];
  // Warm-up: each replica's routes and each worker's first claims.
  for (const setup of setups) {
    pinPostgres(cluster, setup.cpus);
    for (let i = 0; i < clients; i++) await request(setup.servers[i % setup.servers.length].baseUrl, "POST", `/api/v1/skills/${skill}/calls`, { args: {}, wait: true });
  }
  const results = { one: [], two: [] };
  for (let i = 0; i < rounds; i++) {
    for (const setup of setups) results[setup.name].push(await round(setup, { cluster, skill, clients, durationMs: durationMs / rounds, maxCalls: Math.ceil(maxCalls / rounds) }));
  }
  pinPostgres(cluster, "0-1");
  const a = total(results.one);
  const b = total(results.two);
  const scale = b.callsPerSecond / a.callsPerSecond;
  const roundRatios = results.two.map((r, i) => r.succeeded / r.elapsedMs / (results.one[i].succeeded / results.one[i].elapsedMs));
  const rows = [
    {
      bench: "scaling",
      metric: `${clients} clients, calls/s: 2 replicas + 2 workers on 2 cores (taskset -c 0 and -c 1, PostgreSQL on both) vs 1 replica + 1 worker on 1 core (taskset -c 0, PostgreSQL on it too)`,
      server: b.callsPerSecond,
      baseline: a.callsPerSecond,
      unit: "/s",
      better: "higher",
      target: `≥ 1.6×: ${scale >= 1.6 ? "met" : "not met"}`,
    },
    { bench: "scaling", metric: "errors (non-200 or not succeeded): two replicas vs one", server: b.errorCount, baseline: a.errorCount, unit: "", noRatio: true, target: `0: ${a.errorCount + b.errorCount === 0 ? "met" : "not met"}` },
    { bench: "scaling", metric: "CPU per call of the replicas, workers and calls' processes: two vs one", server: b.systemPerCall, baseline: a.systemPerCall, unit: "ms" },
    { bench: "scaling", metric: "PostgreSQL server's own CPU per call: two replicas vs one", server: b.databasePerCall, baseline: a.databasePerCall, unit: "ms" },
    { bench: "scaling", metric: `${clients} clients, call latency p50: two vs one`, server: percentile(b.latencies, 50), baseline: percentile(a.latencies, 50), unit: "ms" },
    { bench: "scaling", metric: `${clients} clients, call latency p95: two vs one`, server: percentile(b.latencies, 95), baseline: percentile(a.latencies, 95), unit: "ms" },
  ];
  const describe = (name, t, cores) =>
    `${name}: ${t.succeeded} calls (${t.errorCount} errors${t.errorCount > 0 ? `: ${[...t.errors].map(([kind, n]) => `${kind} ×${n}`).join("; ")}` : ""}) in ${(t.elapsedMs / 1000).toFixed(1)} s; CPU per call ${fmt(t.systemPerCall)} ms of replicas + workers + calls and ${fmt(t.databasePerCall)} ms of PostgreSQL; its ${cores} core(s) ${((100 * t.busy) / cores).toFixed(0)}% busy; the bench's own HTTP clients ${fmt(t.benchPerCall)} ms per call (unpinned, not counted)`;
  const notes = [
    `scaling: ${rounds} alternating rounds of ${(durationMs / rounds / 1000).toFixed(0)} s per set-up; two ÷ one per round ${roundRatios.map((r) => r.toFixed(2)).join(", ")}`,
    `scaling: ${describe("one replica on one core", a, 1)}`,
    `scaling: ${describe("two replicas on two cores", b, 2)}`,
    `scaling: what a fleet needs of PostgreSQL: ${fmt(b.databasePerCall)} ms of its CPU per call, so one PostgreSQL core serves about ${fmt(1000 / b.databasePerCall)} calls/s of this trivial skill across every replica and worker (each call: insert, claim, start, finish, audit rows and their NOTIFYs)`,
  ];
  return { rows, notes, figures: { scale, one: a.callsPerSecond, two: b.callsPerSecond, databasePerCall: b.databasePerCall } };
}
