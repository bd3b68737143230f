/**
 * Generates the allow-list roots the benchmarks load: a "fleet" root of N realistic subprocess skills
 * (category/skill folders, each with a skill.json carrying a small JSON Schema and an executable entry
 * script) for the loader benchmark, and an "exec" root with the skills the call benchmarks run:
 * `bench_noop` (sh: reads stdin, prints {"ok":true}) and `bench_stderr_ticker` (node: writes timestamped
 * stderr lines).
 */
import fs from "node:fs";
import path from "node:path";

/** Small argument schemas of the kind real ops skills declare; the generator cycles through them. */
const SCHEMAS = [
  (n) => ({
    type: "object",
    properties: {
      host: { type: "string", format: "hostname", description: `Host to probe (target ${n}).` },
      port: { type: "integer", minimum: 1, maximum: 65535, default: 22 },
      timeout_ms: { type: "integer", minimum: 100, maximum: 60000, default: 5000 },
    },
    required: ["host"],
    additionalProperties: false,
  }),
  (n) => ({
    type: "object",
    properties: {
      path: { type: "string", minLength: 1, description: `Folder to inspect (volume ${n}).` },
      recursive: { type: "boolean", default: false },
      max_depth: { type: "integer", minimum: 0, maximum: 32 },
      pattern: { type: "string", description: "Glob of the files to include." },
    },
    required: ["path"],
  }),
  (n) => ({
    type: "object",
    properties: {
      service: { type: "string", pattern: "^[a-z][a-z0-9-]{0,62}$", description: `systemd unit (group ${n}).` },
      action: { type: "string", enum: ["status", "restart", "reload", "stop", "start"] },
      wait: { type: "boolean", default: true },
    },
    required: ["service", "action"],
    additionalProperties: false,
  }),
  (n) => ({
    type: "object",
    properties: {
      since: { type: "string", format: "date-time", description: `Start of the window (stream ${n}).` },
      level: { type: "string", enum: ["debug", "info", "warn", "error"], default: "warn" },
      limit: { type: "integer", minimum: 1, maximum: 10000, default: 200 },
      grep: { type: "string", maxLength: 200 },
    },
  }),
  (n) => ({
    type: "object",
    properties: {
      tags: { type: "array", items: { type: "string", pattern: "^[a-z0-9_.-]+$" }, maxItems: 10, uniqueItems: true },
      owner: { type: "string", format: "email" },
      dry_run: { type: "boolean", default: true },
      note: { type: "string", maxLength: 500, description: `Free text (batch ${n}).` },
    },
    required: ["tags"],
  }),
];

const CLASSES = ["safe", "safe", "safe", "mutating", "dangerous"];
const ENTRY_SCRIPT = "#!/bin/sh\ncat >/dev/null\necho '{\"ok\":true}'\n";

/**
 * Writes `count` skills under `root` as root/cat-XX/skill-NNNNN/{skill.json,run.sh}, 100 per category
 * folder. Every manifest is valid and every name unique, so a scan registers all of them.
 * Returns the number of manifests written.
 */
export function generateFleetRoot(root, count) {
  const perCategory = 100;
  for (let i = 0; i < count; i++) {
    const cat = Math.floor(i / perCategory);
    const dir = path.join(root, `cat-${String(cat).padStart(3, "0")}`, `skill-${String(i).padStart(5, "0")}`);
    fs.mkdirSync(dir, { recursive: true });
    const manifest = {
      name: `fleet_c${cat}_s${i}`,
      description: `Fleet skill ${i}: inspects or adjusts one aspect of the hosts in group ${cat}.`,
      schema: SCHEMAS[i % SCHEMAS.length](i),
      entry: "run.sh",
      env_allow: i % 3 === 0 ? ["PATH", "HOME"] : ["PATH"],
      timeout_seconds: [0, 30, 60, 120][i % 4],
      class: CLASSES[i % CLASSES.length],
      category: `fleet-${cat % 20}`,
    };
    fs.writeFileSync(path.join(dir, "skill.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.writeFileSync(path.join(dir, "run.sh"), ENTRY_SCRIPT, { mode: 0o755 });
  }
  return count;
}

/** The stderr ticker: waits delay_ms, then writes `lines` stderr lines "<wall-clock ms> line <i> …" interval_ms apart. */
function tickerSource() {
  return `#!${process.execPath}
import fs from "node:fs";
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const args = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
const lines = args.lines ?? 200;
const interval = args.interval_ms ?? 5;
await sleep(args.delay_ms ?? 0);
for (let i = 0; i < lines; i++) {
  fs.writeSync(2, now().toFixed(3) + " line " + i + " of " + lines + ": scanning shard " + (i % 17) + "\\n");
  await sleep(interval);
}
fs.writeSync(1, JSON.stringify({ ok: true, lines }));
`;
}

/**
 * Writes the exec root: bench_noop (exec/noop/run.sh) and bench_stderr_ticker (exec/ticker/ticker.mjs).
 * Returns what the call benchmarks need to run the same entries directly: `{ noop, ticker }`, each
 * `{ name, entry, cwd, env }` with the environment the console gives the child (its env_allow).
 */
export function generateExecRoot(root) {
  const noopDir = path.join(root, "noop");
  const tickerDir = path.join(root, "ticker");
  fs.mkdirSync(noopDir, { recursive: true });
  fs.mkdirSync(tickerDir, { recursive: true });
  fs.writeFileSync(
    path.join(noopDir, "skill.json"),
    JSON.stringify({
      name: "bench_noop",
      description: "Benchmark: reads its args and answers {\"ok\":true}.",
      schema: { type: "object", properties: {} },
      entry: "run.sh",
      env_allow: ["PATH"],
      class: "safe",
      category: "bench",
    }),
  );
  fs.writeFileSync(path.join(noopDir, "run.sh"), ENTRY_SCRIPT, { mode: 0o755 });
  fs.writeFileSync(
    path.join(tickerDir, "skill.json"),
    JSON.stringify({
      name: "bench_stderr_ticker",
      description: "Benchmark: writes wall-clock-stamped stderr lines.",
      schema: {
        type: "object",
        properties: {
          lines: { type: "integer", minimum: 1, maximum: 100000 },
          interval_ms: { type: "integer", minimum: 0, maximum: 1000 },
          delay_ms: { type: "integer", minimum: 0, maximum: 10000 },
        },
        additionalProperties: false,
      },
      entry: "ticker.mjs",
      env_allow: [],
      class: "safe",
      category: "bench",
    }),
  );
  fs.writeFileSync(path.join(tickerDir, "ticker.mjs"), tickerSource(), { mode: 0o755 });
  return {
    noop: { name: "bench_noop", entry: path.join(noopDir, "run.sh"), cwd: noopDir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    ticker: { name: "bench_stderr_ticker", entry: path.join(tickerDir, "ticker.mjs"), cwd: tickerDir, env: {} },
  };
}
