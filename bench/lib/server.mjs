/**
 * Starts and stops the real production console for the benchmarks: `node scripts/start.mjs` (migrate,
 * build when stale, scripts/console-server.mjs) as the leader of its own process group, its output appended to a log
 * file, and the whole group killed at the end. Also finds the pid of the Node process that actually
 * serves HTTP (the one holding the listening socket) and of its local worker (.worker/worker.mjs), so
 * their RSS and CPU can be read from /proc.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { authorize, request } from "./http.mjs";

/** The first admin of the benchmark console (its database is fresh, so it is created at start). */
export const BENCH_ADMIN = { email: "bench-admin@console.local", password: "bench-admin-password-0123" };

/**
 * Signs the bench admin in (POST /api/v1/auth/login, which answers only once the console has started)
 * and creates an API token under the default persona with that session; later requests to the console
 * send it (authorize()). Resolves with true when done, false while the console is not answering yet;
 * rejects when it answers but refuses.
 */
async function signInBench(baseUrl) {
  let login;
  try {
    login = await request(baseUrl, "POST", "/api/v1/auth/login", BENCH_ADMIN, { timeoutMs: 300_000 });
  } catch {
    return false;
  }
  if (login.status >= 500 || login.status === 404) return false;
  if (login.status !== 200) throw new Error(`signing in as ${BENCH_ADMIN.email} answered ${login.status}: ${login.text}`);
  // The answer's own Set-Cookie is not kept by node:http; ask again with it as a Cookie header.
  const cookie = login.cookies.map((line) => line.split(";")[0]).join("; ");
  const created = await request(baseUrl, "POST", "/api/v1/tokens", { persona: "default", name: "npm run bench" }, { headers: { cookie, origin: baseUrl } });
  if (created.status !== 201) throw new Error(`creating the bench token answered ${created.status}: ${created.text}`);
  authorize(baseUrl, created.json.token);
  return true;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Pids of the live (non-zombie) processes of process group `pgid`, from /proc. */
export function groupMembers(pgid) {
  const members = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") members.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return members;
}

/** Socket inodes listening on `port` (IPv4 or IPv6), from /proc/net/tcp{,6}. */
function listeningInodes(port) {
  const inodes = new Set();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      if (cols[1].endsWith(`:${hexPort}`) && cols[3] === "0A") inodes.add(cols[9]);
    }
  }
  return inodes;
}

/** The process-group member holding the socket that listens on `port`, or null. */
export function findListeningPid(pgid, port) {
  const inodes = listeningInodes(port);
  for (const pid of groupMembers(pgid)) {
    let fds = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        const match = /^socket:\[(\d+)\]$/.exec(target);
        if (match && inodes.has(match[1])) return pid;
      } catch {
        // fd closed meanwhile
      }
    }
  }
  return null;
}

/** VmRSS and VmHWM (peak) of `pid` in MiB, from /proc/<pid>/status; nulls when unreadable. */
export function readRss(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rssMiB: kib("VmRSS") / 1024, hwmMiB: kib("VmHWM") / 1024 };
  } catch {
    return { rssMiB: null, hwmMiB: null };
  }
}

let clockTicks = null;

function ticksPerSecond() {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * CPU time used so far by `pid` from /proc/<pid>/stat, in ms (clock-tick resolution): `selfMs` = utime +
 * stime (all threads), `childrenMs` = cutime + cstime (children it waited for, with their own waited-for
 * descendants: for the worker, its calls' sh → setpriv → bwrap → skill trees). NaNs when unreadable.
 */
export function readCpu(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = (index) => (Number(fields[index]) * 1000) / ticksPerSecond();
    return { selfMs: ms(11) + ms(12), childrenMs: ms(13) + ms(14) };
  } catch {
    return { selfMs: NaN, childrenMs: NaN };
  }
}

/** CPU time (user + system, all threads, children excluded) used so far by `pid`, in ms; NaN when unreadable. */
export function readCpuMs(pid) {
  return readCpu(pid).selfMs;
}

/** This process's CPU so far in ms: `selfMs` from process.cpuUsage() (µs resolution), `childrenMs` from /proc/self/stat. */
export function ownCpu() {
  const usage = process.cpuUsage();
  return { selfMs: (usage.user + usage.system) / 1000, childrenMs: readCpu(process.pid).childrenMs };
}

/**
 * The pid of the console's local worker (`node .worker/worker.mjs`, a child of the console's server
 * process `serverPid`), from /proc; null when none runs.
 */
export function findWorkerPid(serverPid) {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== serverPid) continue;
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv.some((arg) => arg.endsWith(".worker/worker.mjs"))) return Number(entry);
    } catch {
      // the process ended while we looked
    }
  }
  return null;
}

/**
 * The pids of the worker's process launchers (lib/server/executor/process-launcher.ts: the children of
 * the worker `workerPid` that fork its calls, titled `skill-worker-launcher`), from /proc; [] when none runs.
 */
export function findLauncherPids(workerPid) {
  if (!workerPid) return [];
  const found = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== workerPid) continue;
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").startsWith("skill-worker-launcher")) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** Direct children of `pid` whose program is `exe` (realpath), with their argv, from /proc. */
export function childrenRunning(pid, exe) {
  const found = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== pid || fs.readlinkSync(`/proc/${entry}/exe`) !== exe) continue;
      found.push({ pid: Number(entry), argv: fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").slice(0, -1) });
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/**
 * Waits until the processes `pids` (self + children CPU) use less than `quietMs` of CPU per 500 ms
 * sample, two samples in a row (e.g. the worker's rescan after a loader reload has finished), or
 * `maxMs` passed. Resolves with the ms waited and whether it went quiet.
 */
export async function waitQuiet(pids, { maxMs = 60_000, quietMs = 10 } = {}) {
  const started = performance.now();
  const total = () => pids.reduce((sum, pid) => {
    const cpu = readCpu(pid);
    return sum + (Number.isFinite(cpu.selfMs) ? cpu.selfMs + cpu.childrenMs : 0);
  }, 0);
  let last = total();
  let quiet = 0;
  while (performance.now() - started < maxMs) {
    await delay(500);
    const now = total();
    quiet = now - last <= quietMs ? quiet + 1 : 0;
    last = now;
    if (quiet >= 2) return { waitedMs: performance.now() - started, quiet: true };
  }
  return { waitedMs: performance.now() - started, quiet: false };
}

/** CPU time (user + system) this process used so far, in ms. */
export function ownCpuMs() {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * Starts `node scripts/start.mjs` in `projectRoot` with `env` added to this process's environment,
 * detached (its own process group; everything it spawns — prisma, next build, the console server — stays in
 * it), output appended to `logFile`, with `BENCH_ADMIN` as its first admin. Once the console serves, signs
 * in and creates an API token that every later request sends (signInBench()), then resolves once
 * `readyPath` answers 200 (`cpus`, a taskset CPU list such as "0": the console, its worker and every call's
 * processes run only there), with the server handle:
 * `{ port, pgid, pid, workerPid (null; see waitForWorker), baseUrl, startedAt, readyMs, buildMs, stop() }`. `buildMs` is the time between
 * start.mjs's "building" and "serving" log lines (null when no build was needed). Rejects when the
 * script exits first or `timeoutMs` passes (after stopping the group).
 */
export async function startServer({ projectRoot, env, logFile, readyPath, timeoutMs = 600_000, cpus = null }) {
  const port = Number(env.PORT ?? (await freePort()));
  const log = fs.openSync(logFile, "a");
  const startedAt = performance.now();
  // taskset execs node in its own place (same pid, still the group's leader); children inherit the affinity.
  const [command, argv] = cpus === null ? [process.execPath, []] : ["taskset", ["-c", cpus, process.execPath]];
  const child = spawn(command, [...argv, path.join(projectRoot, "scripts", "start.mjs")], {
    cwd: projectRoot,
    env: { ...process.env, HOST: "127.0.0.1", CONSOLE_ADMIN_EMAIL: BENCH_ADMIN.email, CONSOLE_ADMIN_PASSWORD: BENCH_ADMIN.password, ...env, PORT: String(port) },
    stdio: ["ignore", log, log],
    detached: true,
  });
  fs.closeSync(log);
  const pgid = child.pid;
  let exited = null;
  const exitPromise = new Promise((resolve) =>
    child.once("exit", (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    }),
  );
  const server = {
    port,
    pgid,
    pid: null,
    workerPid: null,
    baseUrl: `http://127.0.0.1:${port}`,
    logFile,
    startedAt,
    readyMs: null,
    buildMs: null,
    stop: () => stopGroup(pgid, exitPromise),
  };
  activeGroups.add(pgid);

  let buildStartedAt = null;
  let servingAt = null;
  let signedIn = false;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (exited) throw new Error(`scripts/start.mjs exited early (${JSON.stringify(exited)}); see ${logFile}`);
      if (Date.now() > deadline) throw new Error(`the console did not answer GET ${readyPath} within ${timeoutMs} ms; see ${logFile}`);
      const text = fs.readFileSync(logFile, "utf8");
      if (buildStartedAt === null && /start: (no production build yet|sources changed)/.test(text)) buildStartedAt = performance.now();
      if (servingAt === null && text.includes("start: serving")) servingAt = performance.now();
      if (servingAt !== null && !signedIn) signedIn = await signInBench(server.baseUrl);
      if (signedIn) {
        try {
          const answer = await request(server.baseUrl, "GET", readyPath, undefined, { timeoutMs: 120_000 });
          if (answer.status === 200) break;
        } catch {
          // not listening yet
        }
      }
      await delay(servingAt === null ? 500 : 100);
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  server.readyMs = performance.now() - (servingAt ?? startedAt);
  server.buildMs = buildStartedAt !== null && servingAt !== null ? servingAt - buildStartedAt : null;
  for (let tries = 0; tries < 50 && server.pid === null; tries++) {
    server.pid = findListeningPid(pgid, port);
    if (server.pid === null) await delay(100);
  }
  return server;
}

/** Process groups started here and not yet stopped (killed synchronously if the bench dies). */
const activeGroups = new Set();

process.once("exit", () => {
  for (const pgid of activeGroups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/**
 * Stops a process group: SIGTERM to the group (start.mjs forwards it to next, which exits and flushes a
 * --cpu-prof profile), waits up to 10 s for every live member to end, then SIGKILLs what remains.
 */
export async function stopGroup(pgid, exitPromise) {
  const signal = (name) => {
    try {
      process.kill(-pgid, name);
    } catch {
      // group already gone
    }
  };
  signal("SIGTERM");
  const deadline = Date.now() + 10_000;
  await Promise.race([exitPromise, delay(10_000)]);
  while (groupMembers(pgid).length > 0 && Date.now() < deadline) await delay(100);
  if (groupMembers(pgid).length > 0) signal("SIGKILL");
  activeGroups.delete(pgid);
}

/**
 * Waits until the console lists a live worker holding every skill of `skills` with a digest (it has
 * registered and reported its scan) and reporting the pid of this console's own worker child (from /proc;
 * replicas on one database list each other's workers too), then sets `server.workerPid` to it and
 * resolves with its WorkerInfo. Rejects after `timeoutMs`.
 */
export async function waitForWorker(server, skills, { timeoutMs = 300_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await request(server.baseUrl, "GET", "/api/v1/workers").catch(() => null);
    // Which live workers hold each skill with the console's digest (the listing carries only a worker's first skills).
    const holders = [];
    for (const name of skills) {
      const held = await request(server.baseUrl, "GET", `/api/v1/skills/${encodeURIComponent(name)}/workers`).catch(() => null);
      holders.push(new Set((held?.json?.workers ?? []).filter((entry) => entry.state === "live" && entry.digest && !entry.drifted && entry.available).map((entry) => entry.id)));
    }
    // This console's own worker: replicas on one database list each other's workers too.
    const pid = findWorkerPid(server.pid);
    const live = (answer?.json?.workers ?? []).filter((entry) => entry.state === "live" && holders.every((ids) => ids.has(entry.id)));
    const worker = live.find((entry) => entry.pid === pid);
    if (worker && pid !== null) {
      server.workerPid = pid;
      return worker;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `no live worker holding ${skills.join(", ")} with the pid of the console's child running .worker/worker.mjs (${pid}) within ${timeoutMs} ms ` +
          `(last answer ${answer?.status}; live workers holding them report pids ${live.map((entry) => entry.pid).join(", ") || "none"}); see ${server.logFile}`,
      );
    }
    await delay(500);
  }
}

/**
 * CPU used by processes that are not this process or its descendants (other work on the machine,
 * kernel threads included), from /proc. Called without an argument: a snapshot. Called with an
 * earlier snapshot: `{ ms, top }`, the CPU they used since (a process started meanwhile counts whole;
 * a pid is the same process while its start time is), and the three biggest users as "name pid: s".
 * `ownRoots`: pids whose trees count as the bench's own too (its PostgreSQL server, which pg_ctl detaches).
 */
export function foreignCpu(since, ownRoots = []) {
  const parents = new Map();
  const cpu = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // A kernel worker's name carries its current work item (kworker/u8:1-events_unbound): keep the thread's own part.
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/^(kworker\/[^-]+)-.*$/, "$1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(entry), Number(fields[1]));
      cpu.set(Number(entry), { name, start: fields[19], ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond() });
    } catch {
      // gone
    }
  }
  const ours = (pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parents.get(p) ?? 0, hops++) if (p === process.pid || ownRoots.includes(p)) return true;
    return false;
  };
  const snapshot = new Map([...cpu].filter(([pid]) => !ours(pid)));
  if (!since) return snapshot;
  const used = [];
  for (const [pid, { name, start, ms }] of snapshot) {
    const before = since.get(pid);
    const delta = before && before.start === start ? ms - before.ms : ms;
    if (delta > 0) used.push({ pid, name, delta });
  }
  used.sort((a, b) => b.delta - a.delta);
  return { ms: used.reduce((sum, entry) => sum + entry.delta, 0), top: used.slice(0, 3).filter((entry) => entry.delta >= 100).map((entry) => `${entry.name} ${entry.pid}: ${(entry.delta / 1000).toFixed(1)} s`) };
}
