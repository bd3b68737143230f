#!/usr/bin/env node
/**
 * Summarises V8 .cpuprofile files (as written by `node --cpu-prof`, e.g. by `node bench/run.mjs
 * --cpu-prof`): self time by function and by file/package, and inclusive ("total") time of the
 * functions whose name matches --focus. Used to find where the console spends its time in a benchmark.
 * Frames in Next.js's minified server chunks are mapped back to their sources (lib/…, node_modules/…)
 * through the chunks' .js.map files, so summarise right after profiling, before the next build.
 *
 * Usage: node bench/profile-summary.mjs <file.cpuprofile | dir> [--top=25] [--focus=regex] [--callers=regex] [--pid=N]
 *   --callers lists the call stacks (3 frames up) that spend self time in functions matching the regex;
 *   --long-tasks=N lists the N longest stretches of uninterrupted main-thread work (event-loop stalls)
 *   with the project (lib/, app/) and database frames most present in each;
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
const newestProfileMs = Math.max(...files.map((f) => fs.statSync(f).mtimeMs));
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

/** `{ name, where }` of a frame: original source and line through the chunk's source map when there is one. */
function resolveFrame(frame) {
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

const self = new Map();
const byFile = new Map();
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
  const frameOf = (node) => {
    if (!resolved.has(node.id)) resolved.set(node.id, resolveFrame(node.callFrame));
    return resolved.get(node.id);
  };
  const keyOf = (node) => {
    const frame = frameOf(node);
    return `${frame.name} ${frame.where}`;
  };
  const deltas = profile.timeDeltas ?? [];
  let task = null;
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    const node = nodes.get(profile.samples[i]);
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
  console.log(`WARNING: ${staleChunks.size} .next chunk(s) were rebuilt after the profile was taken (e.g. ${[...staleChunks][0]}); their frames may be mapped to the wrong sources`);
}
const print = (title, map, n) => {
  console.log(`\n${title}`);
  console.log("| ms | % of busy | where |\n| ---: | ---: | --- |");
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`| ${ms.toFixed(0)} | ${((100 * ms) / busy).toFixed(1)}% | ${key} |`);
  }
};
console.log(`${files.length} profile(s): ${(totalMs / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(1)} s busy (not idle)`);
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
if (callers) print(`Self time in /${callers}/ by call stack`, callerStacks, top);
if (focus) print(`Inclusive time of functions matching /${focus}/`, inclusive, top);
