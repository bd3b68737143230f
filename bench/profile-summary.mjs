#!/usr/bin/env node
/**
 * Summarises V8 .cpuprofile files (as written by `node --cpu-prof`, e.g. by `node bench/run.mjs
 * --cpu-prof`): self time by function and by file/package, and inclusive ("total") time of the
 * functions whose name matches --focus. Used to find where the console spends its time in a benchmark.
 * Frames in Next.js's minified server chunks are mapped back to their sources (lib/…, node_modules/…)
 * through the chunks' .js.map files, so summarise right after profiling, before the next build.
 *
 * Frames of an esbuild bundle (the worker's .worker/worker.mjs) are mapped to their source file through
 * the `// lib/….ts` comment esbuild writes before each module, read from the copy the profiling preload
 * kept (bundle.<pid>.mjs beside the profiles) when there is one. Code rebuilt after the profiled
 * process started (process.<pid>.json) is warned about.
 *
 * Usage: node bench/profile-summary.mjs <file.cpuprofile | dir> [--top=25] [--focus=regex] [--callers=regex] [--pid=N]
 *          [--groups] [--per=N]
 *   --groups adds self time by kind of work: HTTP/Next.js, Prisma/SQLite, JSON, crypto/hashing, spawn,
 *   GC, file system, async context, skill search, validation, project code, other (a native frame without a kind of its own, e.g.
 *   better-sqlite3's Statement.run or a socket's writev, counts for its caller's);
 *   --per=N adds a column of ms per unit (e.g. per call, with N the number of calls in the profile);
 *   --callers lists the call stacks (3 frames up) that spend self time in functions matching the regex;
 *   --long-tasks=N lists the N longest stretches of uninterrupted main-thread work (event-loop stalls)
 *   with the project (lib/, app/) and database frames most present in each;
 *   --stalls=FILE lists the longest event-loop delays a bench recorded in FILE (bench/lib/loop-delay-preload.cjs
 *   with $BENCH_STALL_GAPS_FILE: a timer's late firings) with the frames sampled meanwhile — a stall
 *   made of many short callbacks (a stream's chunks, a chain of promises) shows there, not as one long task;
 *   a directory is searched for *.cpuprofile (only those of process N with --pid); files are summed.
 */
import fs from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const opt = (name, fallback) => args.find((a) => a.startsWith(`--${name}=`))?.split("=").slice(1).join("=") ?? fallback;
const top = Number(opt("top", 25));
const focus = opt("focus", null);
const callers = opt("callers", null);
const longTasks = Number(opt("long-tasks", 0));
const pid = opt("pid", null);
const stallsFile = opt("stalls", null);
/** Recorded event-loop delays ({endUs, gapMs}, the profiles' clock), each with the frames sampled within it. */
const stalls = stallsFile
  ? fs
      .readFileSync(stallsFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => ({ ...JSON.parse(line), samples: 0, frames: new Map() }))
  : [];
const groups = args.includes("--groups");
const per = Number(opt("per", 0)) || null;
const inputs = args.filter((a) => !a.startsWith("--"));

let files = [];
for (const input of inputs) {
  if (fs.statSync(input).isDirectory()) {
    files.push(...fs.readdirSync(input).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(input, f)));
  } else files.push(input);
}
if (pid) files = files.filter((f) => path.basename(f).split(".")[3] === pid);
if (files.length === 0) {
  console.error("no .cpuprofile files");
  process.exit(1);
}

/** Where a frame's code lives: a package under node_modules, a Next.js chunk, node internals, or V8 pseudo-frames. */
function fileOf(url) {
  if (!url) return "(native/V8)";
  if (url.startsWith("node:")) return url;
  if (url.startsWith("lib/") || url.startsWith("app/")) return url;
  const nm = url.lastIndexOf("node_modules/");
  if (nm !== -1) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return `node_modules/${rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const next = url.indexOf("/.next/");
  if (next !== -1) return url.slice(next + 1);
  return url.replace(/^file:\/\//, "");
}

const maps = new Map();
const staleChunks = new Set();
/** When the profiled processes started (process.<pid>.json of the preload), else when the newest profile was written. */
const pidOf = (file) => path.basename(file).split(".")[3];
const processInfo = (file) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(path.dirname(file), `process.${pidOf(file)}.json`), "utf8"));
  } catch {
    return null;
  }
};
const startTimes = files.map((f) => processInfo(f)?.startedAt).filter(Number.isFinite);
const newestProfileMs = startTimes.length > 0 ? Math.min(...startTimes) : Math.max(...files.map((f) => fs.statSync(f).mtimeMs));
/** The source map of a generated file (a .next chunk), or null. */
function mapOf(url) {
  if (!url.startsWith("file://") || !url.includes("/.next/")) return null;
  if (!maps.has(url)) {
    let map = null;
    try {
      if (fs.statSync(fileURLToPath(url)).mtimeMs > newestProfileMs) staleChunks.add(path.basename(fileURLToPath(url)));
      const payload = JSON.parse(fs.readFileSync(`${fileURLToPath(url)}.map`, "utf8"));
      if (payload.mappings || payload.sections) map = { sm: new SourceMap(payload), payload };
    } catch {
      // no map
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** A readable name for the function starting at `column` of `text` (a line of original source). */
function nameAt(text, column) {
  const rest = text.slice(column);
  const patterns = [
    /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)/,
    /^(?:static\s+)?(?:async\s+)?(?:get\s+|set\s+)?\*?([\w$#]+)\s*\(/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(rest);
    if (match) return match[1];
  }
  const before = /([\w$]+)\s*[:=]\s*(?:async\s*)?$/.exec(text.slice(0, column));
  return before ? before[1] : null;
}

const bundles = new Map();
/**
 * For an esbuild bundle (not under .next or node_modules): per line, the source file whose `// lib/….ts`
 * marker precedes it; null otherwise. `copy` is the preload's copy of the worker's bundle, when kept.
 */
function bundleOf(url, copy) {
  if (!url.startsWith("file://") || url.includes("/.next/") || url.includes("/node_modules/") || !/\.m?js$/.test(url)) return null;
  const useCopy = copy !== null && url.endsWith("/.worker/worker.mjs") && fs.existsSync(copy);
  const key = useCopy ? copy : url;
  if (!bundles.has(key)) {
    let sources = null;
    try {
      const file = useCopy ? copy : fileURLToPath(url);
      if (!useCopy && fs.statSync(file).mtimeMs > newestProfileMs) staleChunks.add(path.basename(file));
      const lines = fs.readFileSync(file, "utf8").split("\n");
      let current = null;
      sources = lines.map((line) => {
        const marker = /^\/\/ ((?:lib|app|scripts|bench)\/\S+\.tsx?)$/.exec(line);
        if (marker) current = marker[1];
        return current;
      });
      if (!sources.some(Boolean)) sources = null;
    } catch {
      // unreadable: the frame keeps its bundle name
    }
    bundles.set(key, sources);
  }
  return bundles.get(key);
}

/** `{ name, where }` of a frame: original source and line through the chunk's source map when there is one. */
function resolveFrame(frame, copy) {
  const bundle = bundleOf(frame.url, copy);
  const source = bundle?.[frame.lineNumber];
  if (source) return { name: frame.functionName || "(anonymous)", where: `${source} (${path.basename(fileURLToPath(frame.url))}:${frame.lineNumber + 1})`, file: source };
  const map = mapOf(frame.url);
  if (map) {
    const entry = map.sm.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry && entry.originalSource) {
      const index = map.payload.sources?.indexOf(entry.originalSource) ?? -1;
      const content = index >= 0 ? map.payload.sourcesContent?.[index] : undefined;
      const line = content?.split("\n")[entry.originalLine] ?? "";
      const source = entry.originalSource.replace(/^(\.\.\/)+/, "").replace(/^\[project\]\//, "");
      return { name: entry.name ?? nameAt(line, entry.originalColumn) ?? frame.functionName ?? "(anonymous)", where: `${source}:${entry.originalLine + 1}`, file: fileOf(source) };
    }
  }
  return { name: frame.functionName || "(anonymous)", where: `${fileOf(frame.url)}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`, file: fileOf(frame.url) };
}

/** Natives that are JSON itself; other natives (sqlite's Statement.run, a socket's writev) count for their caller. */
const JSON_NATIVES = new Set(["parse", "stringify", "JSON.parse", "JSON.stringify", "JSONParse", "JSONStringify"]);
const GROUP_RULES = [
  ["crypto/hashing", /^node:(internal\/)?crypto|node_modules\/(canonicalize|@noble|@better-auth\/utils|jose)\b|^lib\/server\/skills\/(skill-digest|console-digests|call-digest)|file-hash/],
  ["Prisma/SQLite", /node_modules\/(@prisma\/|\.prisma|prisma\b|better-sqlite3)|^wasm:|^lib\/server\/db\.ts/],
  ["spawn", /^node:(internal\/)?child_process|node_modules\/(execa|cross-spawn|get-stream|human-signals|npm-run-path|signal-exit|strip-final-newline|is-stream|figures|yoctocolors|parse-ms|pretty-ms|unicorn-magic|is-plain-obj)\b|^lib\/server\/executor\//],
  ["HTTP/Next.js", /node_modules\/(next|react|react-dom|@next|scheduler|better-auth|zod)\b|^\.next\/|^node:(_http_|http$|https$|net$|dns$|zlib$|url$|internal\/(deps\/undici|http|url|webstreams|streams|stream_base_commons|encoding|abort_controller|event_target|per_context\/domexception|worker\/js_transferable|blob))|^app\/|^lib\/server\/http\/|^lib\/worker\/console-client|^lib\/server\/auth\/|^scripts\/(console-server|peer-address)/],
  ["file system", /^node:(fs|internal\/fs)/],
  ["skill search (minisearch)", /node_modules\/minisearch\b|^lib\/server\/search\//],
  ["validation (ajv)", /node_modules\/(ajv|ajv-formats|fast-uri|fast-deep-equal|json-schema-traverse)\b|^lib\/validation\//],
  ["async context", /^node:(async_hooks|internal\/async_hooks|internal\/process\/task_queues|internal\/timers|timers)/],
  ["project code (lib/)", /^(lib|app)\//],
];
/** The kind of work of a frame, or null when it should count for its caller's (an unnamed native). */
function groupOfFrame(callFrame, frame) {
  const name = callFrame.functionName;
  if (name === "(garbage collector)") return "GC";
  if (name === "(program)") return "V8 (program)";
  if (name === "(root)") return "other";
  if (!callFrame.url) {
    if (JSON_NATIVES.has(name)) return "JSON";
    if (name === "runMicrotasks") return "async context";
    if (name === "spawn" || name === "Pipe" || name === "Process") return "spawn";
    return null;
  }
  for (const [group, pattern] of GROUP_RULES) if (pattern.test(frame.file)) return group;
  return "other";
}

const self = new Map();
const byFile = new Map();
const byGroup = new Map();
const inclusive = new Map();
const callerStacks = new Map();
const tasks = [];
let totalMs = 0;
let idleMs = 0;
const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);

for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const resolved = new Map();
  const copy = path.join(path.dirname(file), `bundle.${pidOf(file)}.mjs`);
  const frameOf = (node) => {
    if (!resolved.has(node.id)) resolved.set(node.id, resolveFrame(node.callFrame, copy));
    return resolved.get(node.id);
  };
  const keyOf = (node) => {
    const frame = frameOf(node);
    return `${frame.name} ${frame.where}`;
  };
  const groupMemo = new Map();
  const groupOf = (id) => {
    if (!groupMemo.has(id)) {
      const node = nodes.get(id);
      const own = groupOfFrame(node.callFrame, frameOf(node));
      const up = parent.get(id);
      groupMemo.set(id, own ?? (up === undefined ? "other" : groupOf(up)));
    }
    return groupMemo.get(id);
  };
  const deltas = profile.timeDeltas ?? [];
  let task = null;
  let sampledUs = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    const node = nodes.get(profile.samples[i]);
    sampledUs += deltas[i] ?? 0;
    for (const stall of stalls) {
      if (sampledUs > stall.endUs || sampledUs < stall.endUs - stall.gapMs * 1000) continue;
      stall.samples += 1;
      const seen = new Set();
      for (let id = node.id; id !== undefined; id = parent.get(id)) {
        const key = keyOf(nodes.get(id));
        if (!seen.has(key) && (id === node.id || /^(lib|app)\/|node_modules\/(@prisma|better-sqlite3)/.test(frameOf(nodes.get(id)).file))) {
          seen.add(key);
          add(stall.frames, id === node.id ? `self: ${key}` : key, ms);
        }
      }
    }
    totalMs += ms;
    const name = node.callFrame.functionName;
    if (name === "(idle)" || name === "(program)") {
      if (task) tasks.push(task);
      task = null;
      if (name === "(idle)") {
        idleMs += ms;
        continue;
      }
    } else if (longTasks) {
      task ??= { ms: 0, frames: new Map(), file: path.basename(file) };
      task.ms += ms;
      const seen = new Set();
      for (let id = node.id; id !== undefined; id = parent.get(id)) {
        const frame = frameOf(nodes.get(id));
        if (!/^(lib|app)\/|node_modules\/(@prisma|better-sqlite3|execa)/.test(frame.file)) continue;
        const key = `${frame.name} ${frame.where}`;
        if (!seen.has(key)) {
          seen.add(key);
          add(task.frames, key, ms);
        }
      }
    }
    add(self, keyOf(node), ms);
    if (groups) add(byGroup, groupOf(node.id), ms);
    add(byFile, name.startsWith("(") ? name : frameOf(node).file, ms);
    if (callers && new RegExp(callers).test(keyOf(node))) {
      const stack = [];
      for (let id = node.id, depth = 0; id !== undefined && depth < 4; id = parent.get(id), depth++) stack.push(keyOf(nodes.get(id)));
      add(callerStacks, stack.join(" ← "), ms);
    }
    if (focus) {
      const seen = new Set();
      for (let id = node.id; id !== undefined; id = parent.get(id)) {
        const key = keyOf(nodes.get(id));
        if (!seen.has(key) && new RegExp(focus).test(key)) {
          seen.add(key);
          add(inclusive, key, ms);
        }
      }
    }
  }
}

const busy = totalMs - idleMs;
if (staleChunks.size > 0) {
  console.log(`WARNING: ${staleChunks.size} built file(s) were rebuilt after the profiled process started (e.g. ${[...staleChunks][0]}); their frames may be mapped to the wrong sources`);
}
const print = (title, map, n) => {
  console.log(`\n${title}`);
  console.log(per ? "| ms | ms per unit | % of busy | where |\n| ---: | ---: | ---: | --- |" : "| ms | % of busy | where |\n| ---: | ---: | --- |");
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`| ${ms.toFixed(0)} |${per ? ` ${(ms / per).toFixed(2)} |` : ""} ${((100 * ms) / busy).toFixed(1)}% | ${key} |`);
  }
};
console.log(`${files.length} profile(s): ${(totalMs / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (not idle)${per ? `; ${(busy / per).toFixed(1)} ms busy per unit (${per} units)` : ""}`);
if (groups) print("Self time by kind of work (a native frame counts for its caller's kind)", byGroup, 20);
print("Self time by file/package", byFile, top);
print("Self time by function", self, top);
if (longTasks) {
  console.log(`\nLongest stretches of main-thread work without going idle`);
  console.log("| ms | most present project/database frames (ms inclusive) |\n| ---: | --- |");
  for (const t of tasks.sort((a, b) => b.ms - a.ms).slice(0, longTasks)) {
    const frames = [...t.frames].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, ms]) => `${k} (${ms.toFixed(0)})`).join("; ");
    console.log(`| ${t.ms.toFixed(0)} | ${frames || "(framework/start-up)"} |`);
  }
}
if (stallsFile) {
  console.log(`\nLongest event-loop delays recorded in ${stallsFile} (of ${stalls.length}), with what was sampled meanwhile`);
  console.log("| delay ms | samples | most present project/database frames and self frames (ms) |\n| ---: | ---: | --- |");
  for (const stall of stalls.filter((s) => s.samples > 0).sort((a, b) => b.gapMs - a.gapMs).slice(0, longTasks || 8)) {
    const frames = [...stall.frames].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, ms]) => `${k} (${ms.toFixed(0)})`).join("; ");
    console.log(`| ${stall.gapMs.toFixed(0)} | ${stall.samples} | ${frames} |`);
  }
}
if (callers) print(`Self time in /${callers}/ by call stack`, callerStacks, top);
if (focus) print(`Inclusive time of functions matching /${focus}/`, inclusive, top);
