/**
 * skill_search benchmark: `POST /api/v1/tools/call` `{"name": "skill_search", "arguments": {"query"}}`
 * over N generated native skills (bench/lib/fixtures.mjs generateNativeRoot, served by a console of
 * their own), with a varied query set — a task in a few words, an exact skill name, typos, Spanish,
 * a sentence, a query nothing matches — in rotation. Baseline: the cheapest authenticated request,
 * `GET /api/v1/auth/session` (token check + JSON), alternating with the searches, so the difference
 * is what searching costs. The first search after start-up builds the index and is reported apart.
 * Beside it, relevance on the judged set (tests/fixtures/search/judged-queries.json over the bundled
 * skills and the real-world corpus): mean reciprocal rank and top-1 accuracy (issue 12 point 3).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchModule } from "./lib/build-bench.mjs";
import { request } from "./lib/http.mjs";
import { readCpu } from "./lib/server.mjs";
import { percentile } from "./lib/stats.mjs";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Queries of the kinds agents send; `generated` adds exact names from the skills written. */
function queriesFor(generated) {
  const sample = (i) => generated[Math.floor((i * generated.length) / 7)];
  return [
    "deploy a service",
    "restart the kubernetes pod",
    "back up the postgresql database",
    "rotate nginx logs",
    "check tls certificate expiry",
    "renew lets encrypt certificate",
    "free disk space on a volume",
    "kafka consumer group lag",
    "send the daily report to slack",
    "why is the api slow after the release",
    "list open ports and firewall rules",
    "clean up old docker containers",
    "deplyo servcie",
    "postgres bakcup",
    "desplegar un servicio",
    "reiniciar el contenedor",
    "grafana dashboard",
    "s3 bucket",
    "terraform",
    "when an alert fires about disk",
    ...[1, 2, 3].map((i) => sample(i).name),
    `${sample(4).verb} ${sample(4).tech}`,
    "zzqx frobnicate the quux",
  ];
}

/** One skill_search through the API; throws unless it answered 200 with matches. */
async function search(server, query) {
  const answer = await request(server.baseUrl, "POST", "/api/v1/tools/call", { name: "skill_search", arguments: { query } });
  if (answer.status !== 200 || !Array.isArray(answer.json?.result?.matches)) throw new Error(`skill_search ${JSON.stringify(query)} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer;
}

async function bare(server) {
  const answer = await request(server.baseUrl, "GET", "/api/v1/auth/session");
  if (answer.status !== 200) throw new Error(`GET /api/v1/auth/session answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  return answer;
}

/** Runs the search benchmark against a console serving `generated.length` native skills; returns `{ rows, notes }`. */
export async function benchSearch({ server, generated, requests, warmup }) {
  const loader = await request(server.baseUrl, "GET", "/api/v1/loader");
  const report = loader.json?.report;
  const queries = queriesFor(generated);
  const first = await search(server, queries[0]);
  for (let i = 0; i < warmup; i++) {
    await search(server, queries[i % queries.length]);
    await bare(server);
  }
  const searches = [];
  const bares = [];
  const byQuery = new Map();
  const timesOf = new Map();
  let empty = 0;
  const cpu0 = readCpu(server.pid).selfMs;
  for (let i = 0; i < requests; i++) {
    const query = queries[i % queries.length];
    const answer = await search(server, query);
    searches.push(answer.ms);
    timesOf.set(query, [...(timesOf.get(query) ?? []), answer.ms]);
    if (answer.json.result.matches.length === 0) empty++;
    if (!byQuery.has(query)) byQuery.set(query, answer.json.result.matches[0]?.name ?? "(none)");
    bares.push((await bare(server)).ms);
  }
  const cpuPerPair = (readCpu(server.pid).selfMs - cpu0) / requests;
  const p = (values, q) => percentile(values, q);
  const exact = queries.filter((query) => generated.some((skill) => skill.name === query));
  const exactHits = exact.filter((query) => byQuery.get(query) === query).length;
  const overP95 = p(searches, 95) - p(bares, 95);
  const rows = [
    { bench: "search", metric: `skill_search p50 over ${generated.length} native skills vs bare authenticated GET /api/v1/auth/session`, server: p(searches, 50), baseline: p(bares, 50), unit: "ms" },
    {
      bench: "search",
      metric: "skill_search p95 vs bare authenticated request p95",
      server: p(searches, 95),
      baseline: p(bares, 95),
      unit: "ms",
      target: `≤ baseline + 5 ms (issue 12 point 3): ${overP95 <= 5 ? "met" : "not met"}`,
    },
  ];
  // Relevance on the judged set (the bundled skills and the real-world corpus), measured in this process
  // with the console's own loaders and ranking (bench/lib/judged-relevance.ts).
  const { judgeProject } = await import(await buildBenchModule("judged-relevance"));
  const judgement = await judgeProject(projectRoot);
  rows.push(
    { bench: "search", metric: `relevance on the judged set: mean reciprocal rank of the right skill (${judgement.pairs} queries over ${judgement.poolSize} skills)`, server: judgement.mrr, baseline: null, unit: "" },
    { bench: "search", metric: "relevance on the judged set: top-1 accuracy (the right skill ranked first)", server: judgement.top1, baseline: null, unit: "" },
  );
  const notes = [
    `search: ${requests} searches over ${queries.length} queries in rotation, each followed by a bare request, after ${warmup} warm-up pairs; the console's CPU per search + bare pair ${cpuPerPair.toFixed(1)} ms; ${empty} answers had no match (the nonsense query); exact-name queries ranked first ${exactHits} of ${exact.length}`,
    `search: the first search after start-up (index build) took ${first.ms.toFixed(0)} ms; the console's native scan of ${generated.length} SKILL.md took ${report?.durationMs ?? "?"} ms (registered ${report?.count ?? "?"})`,
    `search: slowest queries (p50 over their ${Math.floor(requests / queries.length)}+ runs): ${[...timesOf]
      .map(([query, times]) => [query, p(times, 50)])
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([query, ms]) => `${JSON.stringify(query)} ${ms.toFixed(1)} ms`)
      .join("; ")}`,
    `search: top match per query: ${[...byQuery].slice(0, 8).map(([query, name]) => `${JSON.stringify(query)} → ${name}`).join("; ")}`,
    `search relevance: judged queries whose right skill did not rank first: ${judgement.misses.map((miss) => `${JSON.stringify(miss.query)} → ${miss.first} (${miss.skill} at ${miss.rank || ">50"})`).join("; ") || "none"}`,
  ];
  return { rows, notes, stats: { units: requests, unit: "search + bare request pair" } };
}
