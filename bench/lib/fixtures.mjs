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

/** Vocabulary of the generated native skills: what ops skills act on, with the words their authors use. */
const NATIVE_DOMAINS = [
  { category: "devops", techs: ["kubernetes", "docker", "systemd", "nomad", "helm", "argocd"], objects: ["service", "deployment", "container", "pod", "release", "rollout"] },
  { category: "data", techs: ["postgresql", "mysql", "redis", "mongodb", "clickhouse", "sqlite"], objects: ["database", "replica", "backup", "index", "table", "migration"] },
  { category: "network", techs: ["nginx", "haproxy", "cloudflare", "wireguard", "bind", "envoy"], objects: ["dns record", "firewall rule", "load balancer", "vpn tunnel", "route", "port"] },
  { category: "security", techs: ["vault", "lets-encrypt", "openssh", "fail2ban", "trivy", "gpg"], objects: ["certificate", "secret", "ssh key", "user account", "vulnerability report", "audit log"] },
  { category: "monitoring", techs: ["prometheus", "grafana", "loki", "sentry", "pagerduty", "datadog"], objects: ["alert", "dashboard", "metric", "error trace", "uptime check", "incident"] },
  { category: "storage", techs: ["s3", "minio", "zfs", "lvm", "nfs", "ceph"], objects: ["bucket", "volume", "snapshot", "disk", "quota", "mount"] },
  { category: "ci", techs: ["jenkins", "github-actions", "gitlab-ci", "buildkite", "drone", "tekton"], objects: ["pipeline", "build", "artifact", "runner", "test report", "cache"] },
  { category: "messaging", techs: ["kafka", "rabbitmq", "nats", "sqs", "pubsub", "mqtt"], objects: ["topic", "queue", "consumer group", "dead letter queue", "partition", "subscription"] },
  { category: "communication", techs: ["slack", "email", "teams", "matrix", "telegram", "sms"], objects: ["daily report", "status update", "on-call summary", "release note", "reminder", "digest"] },
  { category: "system", techs: ["linux", "debian", "ubuntu", "rhel", "alpine", "freebsd"], objects: ["log file", "cron job", "package", "kernel module", "process", "swap"] },
  { category: "analysis", techs: ["elasticsearch", "bigquery", "pandas", "duckdb", "spark", "jq"], objects: ["log pattern", "cost report", "latency histogram", "usage trend", "error budget", "capacity forecast"] },
  { category: "cloud", techs: ["aws", "gcp", "azure", "hetzner", "digitalocean", "terraform"], objects: ["instance", "iam role", "billing alert", "autoscaling group", "vpc", "tag"] },
];
const NATIVE_VERBS = [
  ["deploy", "Deploy", "deploying"], ["restart", "Restart", "restarting"], ["check", "Check the health of", "checking"], ["rotate", "Rotate", "rotating"],
  ["backup", "Back up", "backing up"], ["restore", "Restore", "restoring"], ["scan", "Scan", "scanning"], ["list", "List", "listing"],
  ["clean", "Clean up", "cleaning up"], ["audit", "Audit", "auditing"], ["migrate", "Migrate", "migrating"], ["resize", "Resize", "resizing"],
  ["inspect", "Inspect", "inspecting"], ["summarize", "Summarize", "summarizing"], ["renew", "Renew", "renewing"], ["sync", "Synchronise", "synchronising"],
  ["export", "Export", "exporting"], ["validate", "Validate", "validating"], ["tune", "Tune", "tuning"], ["rollback", "Roll back", "rolling back"],
  ["monitor", "Monitor", "monitoring"], ["upgrade", "Upgrade", "upgrading"], ["provision", "Provision", "provisioning"], ["benchmark", "Benchmark", "benchmarking"],
  ["tag", "Tag", "tagging"], ["archive", "Archive", "archiving"], ["prune", "Prune", "pruning"], ["reindex", "Rebuild the index of", "reindexing"],
  ["troubleshoot", "Troubleshoot", "troubleshooting"], ["compress", "Compress", "compressing"],
];
const NATIVE_DETAILS = [
  "and report what changed",
  "with a dry run first that prints every command",
  "keeping the last seven copies",
  "across every host of an environment",
  "and open a ticket when something looks wrong",
  "then verify the result and roll back on failure",
  "and post a short summary to the team channel",
  "reading only, never changing anything",
];
const NATIVE_TRIGGERS = [
  "before a maintenance window",
  "after an incident, to see what happened",
  "when an alert fires about it",
  "when disk or memory runs low",
  "at the end of a sprint",
  "when a customer reports slowness",
  "during an on-call shift",
  "before a release goes out",
];

/** A small deterministic pseudo-random sequence (LCG), so every run generates the same skills. */
function lcg(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Writes `count` native skills under `root` as root/<category>/<name>/SKILL.md: distinct names made of
 * a verb, a technology and an object (`rotate-nginx-dns-record`), a description and a when_to_use in the
 * words real ops skills use, a class, and some `tools[]`, so skill_search ranks over overlapping,
 * realistic vocabulary. Deterministic. Returns the names written, in generation order.
 */
export function generateNativeRoot(root, count) {
  const random = lcg(20261130);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const combos = [];
  for (const domain of NATIVE_DOMAINS) for (const tech of domain.techs) for (const object of domain.objects) for (const verb of NATIVE_VERBS) combos.push({ domain, tech, object, verb });
  if (count > combos.length) throw new Error(`at most ${combos.length} distinct native skills can be generated`);
  // A deterministic shuffle (Fisher–Yates), so any count mixes every domain and verb.
  for (let i = combos.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [combos[i], combos[j]] = [combos[j], combos[i]];
  }
  const written = [];
  for (const { domain, tech, object, verb: [verb, Verb, verbing] } of combos.slice(0, count)) {
    const name = `${verb}-${tech}-${object.replace(/ /g, "-")}`;
    const i = written.length;
    const description = `${Verb} the ${object} of a ${tech} setup ${pick(NATIVE_DETAILS)}. Works on one host or a named group (${domain.category}).`;
    const whenToUse = `When someone asks for ${verbing} a ${tech} ${object}, or ${pick(NATIVE_TRIGGERS)}.`;
    const skillClass = ["safe", "safe", "mutating", "dangerous"][i % 4];
    const lines = [
      "---",
      `name: ${name}`,
      `description: ${JSON.stringify(description)}`,
      `when_to_use: ${JSON.stringify(whenToUse)}`,
      `class: ${skillClass}`,
      "license: MIT",
    ];
    if (i % 3 === 0) {
      lines.push("tools:", `  - name: ${verb}`, `    impl: scripts/${verb}.sh`, `    class: ${skillClass}`, `    description: ${JSON.stringify(`${Verb} the ${object} (${tech}).`)}`);
    }
    if (i % 5 === 0) lines.push("metadata:", "  os: [linux]", "  requires:", `    bins: [sh]`);
    lines.push("---", "", `# ${Verb} ${tech} ${object}`, "", `${description}`, "", "## Steps", "", `1. Find the ${object} to work on.`, `2. ${Verb} it, printing each command first.`, "3. Report the outcome.", "");
    const dir = path.join(root, domain.category, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "SKILL.md"), lines.join("\n"));
    if (i % 3 === 0) {
      fs.mkdirSync(path.join(dir, "scripts"));
      fs.writeFileSync(path.join(dir, "scripts", `${verb}.sh`), `#!/bin/sh\necho "${verb} $*"\n`, { mode: 0o755 });
    }
    written.push({ name, category: domain.category, tech, object, verb });
  }
  return written;
}
