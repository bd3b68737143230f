/**
 * Loader benchmark: how long the console's skill loader takes to scan an allow-list root of N
 * generated skill.json manifests, through `POST /api/v1/loader/reload` (the report's `durationMs`, and
 * the HTTP round trip which adds serialising the report), against a baseline of the same lexical walk
 * done in this process with nothing but readdir + readFile + JSON.parse of every manifest. Baseline and
 * reload runs alternate; medians are reported. Repetitions stop early (at least one is run) when
 * another would overrun `budgetMs`, so a loaded machine still finishes in time.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { request } from "./lib/http.mjs";
import { ownCpuMs, readCpuMs, readRss } from "./lib/server.mjs";
import { median } from "./lib/stats.mjs";

const byBytes = (a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));

/** The bare walk: same order and skips as the loader, reads and parses every skill.json. Returns the count. */
export async function bareScan(roots) {
  let count = 0;
  async function visit(dir) {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    entries.sort(byBytes);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git" && entry.name !== "node_modules") await visit(full);
      } else if (entry.name === "skill.json") {
        const text = await fs.readFile(full, "utf8");
        JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
        count++;
      }
    }
  }
  for (const root of roots) await visit(root);
  return count;
}

/** Runs the loader benchmark; returns `{ rows, notes }` for the summary. */
export async function benchLoader({ server, roots, expected, reps, budgetMs }) {
  const started = performance.now();
  const rssBefore = readRss(server.pid).rssMiB;
  const startup = await request(server.baseUrl, "GET", "/api/v1/loader");
  const startupScanMs = startup.json?.report?.durationMs ?? NaN;
  await bareScan(roots); // warm-up (the console's start-up scan already warmed the page cache)
  const baseline = [];
  const duration = [];
  const roundTrip = [];
  const baselineCpu = [];
  const serverCpu = [];
  let count = null;
  for (let i = 0; i < reps; i++) {
    const elapsed = performance.now() - started;
    if (i > 0 && elapsed + elapsed / i > budgetMs) break;
    const t0 = performance.now();
    const cpu0 = ownCpuMs();
    const found = await bareScan(roots);
    baseline.push(performance.now() - t0);
    baselineCpu.push(ownCpuMs() - cpu0);
    if (found !== expected) throw new Error(`bare scan found ${found} manifests, expected ${expected}`);
    const serverCpu0 = readCpuMs(server.pid);
    const answer = await request(server.baseUrl, "POST", "/api/v1/loader/reload", undefined, { timeoutMs: 300_000 });
    serverCpu.push(readCpuMs(server.pid) - serverCpu0);
    if (answer.status !== 200) throw new Error(`POST /api/v1/loader/reload answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    duration.push(answer.json.report.durationMs);
    roundTrip.push(answer.ms);
    count = answer.json.report.count;
    console.log(`  loader rep ${i + 1}/${reps}: bare ${baseline.at(-1).toFixed(0)} ms, reload durationMs ${duration.at(-1)} ms, round trip ${answer.ms.toFixed(0)} ms`);
  }
  const notes = [
    `loader: ${expected} manifests, ${duration.length} of ${reps} reps within the ${(budgetMs / 1000).toFixed(0)} s budget (median); the console registered ${count}; its start-up scan (cold) took ${startupScanMs} ms; server RSS ${rssBefore?.toFixed(0)} MiB after the start-up scan, ${readRss(server.pid).rssMiB?.toFixed(0)} MiB after the reloads`,
  ];
  if (count !== expected) notes.push(`loader: WARNING registered ${count} of ${expected} manifests`);
  const base = median(baseline);
  return {
    rows: [
      { bench: "loader", metric: `reload durationMs, ${expected} manifests`, server: median(duration), baseline: base, unit: "ms", better: "lower" },
      { bench: "loader", metric: "reload HTTP round trip", server: median(roundTrip), baseline: base, unit: "ms", better: "lower" },
      { bench: "loader", metric: "CPU time per scan (server process vs bench process)", server: median(serverCpu), baseline: median(baselineCpu), unit: "ms", better: "lower" },
    ],
    notes,
  };
}
