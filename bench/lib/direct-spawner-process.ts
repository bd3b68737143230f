/**
 * The process the call benchmarks' baselines run in (bundled by bench/lib/build-bench.mjs into
 * .bench-build/direct-spawner-process.mjs, started by bench/lib/direct-client.mjs): a small Node
 * process that does nothing but createDirectSpawner's spawns, so a baseline pays no fork cost for
 * the bench's own heap (libuv forks: a spawn costs more the larger the parent's memory) and its CPU
 * is read from /proc/<pid>/stat the same way as the worker's.
 *
 * Protocol: one JSON request per line on stdin, `{id, op, …}`; one JSON answer per line on stdout,
 * `{id, result}` or `{id, error}`. Ops:
 *   init {options: DirectSpawnerOptions} → {description, hiddenPaths, bwrapPath}
 *   run {kind: "sandboxed"|"plain", skill, stdin, stampedStderr?} → {ms, outcome, latencies?}
 *     (`stampedStderr`: each stderr line starts with its wall-clock write time; latencies are now − that)
 *   load {kind, skill, clients, durationMs, maxCalls} → {done, errors, elapsedMs, latencies}
 *     (`clients` loops of runs with "{}" back to back, as bench/lib/spawn.mjs runConcurrently)
 *   argv {skill} → the bwrap argv
 *   ballast {mib} → holds `mib` MiB of resident memory (0 frees it): how much a spawn's cost depends on
 *     the spawning process's size (libuv forks it), measured by making this process the worker's size
 *   close → removes the cgroup run folder, answers, exits
 * Logs go to stderr.
 */
import readline from "node:readline";
import { createDirectSpawner, type DirectRun, type DirectSpawner, type DirectSpawnerOptions } from "./direct-spawn";

type Kind = "sandboxed" | "plain";
interface Request {
  id: number;
  op: "init" | "run" | "load" | "argv" | "ballast" | "close";
  mib?: number;
  options?: DirectSpawnerOptions;
  kind?: Kind;
  skill?: string;
  stdin?: string;
  stampedStderr?: boolean;
  clients?: number;
  durationMs?: number;
  maxCalls?: number;
}

// stdout carries the protocol only.
console.log = (...args: unknown[]) => console.error(...args);

let spawner: DirectSpawner | null = null;
let ballast: Buffer[] = [];
const wallClockMs = () => performance.timeOrigin + performance.now();

function ready(): DirectSpawner {
  if (!spawner) throw new Error("init first");
  return spawner;
}

function runOnce(kind: Kind, skill: string, stdin: string, onLine?: (line: string) => void): Promise<DirectRun> {
  const target = ready();
  return kind === "sandboxed" ? target.sandboxed(skill, stdin, onLine) : target.plain(skill, stdin, onLine);
}

function succeeded(run: DirectRun): boolean {
  const { outcome } = run;
  if (outcome.exitCode !== 0 || outcome.error) return false;
  try {
    return (JSON.parse(outcome.stdout) as { ok?: unknown }).ok === true;
  } catch {
    return false;
  }
}

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case "init": {
      spawner = await createDirectSpawner(request.options!);
      return { description: spawner.description, hiddenPaths: spawner.hiddenPaths, bwrapPath: spawner.host.bwrapPath };
    }
    case "run": {
      const latencies: number[] = [];
      const onLine = request.stampedStderr ? (line: string) => latencies.push(wallClockMs() - Number(line.slice(0, line.indexOf(" ")))) : undefined;
      const run = await runOnce(request.kind!, request.skill!, request.stdin ?? "{}", onLine);
      return { ms: run.ms, outcome: run.outcome, ok: succeeded(run), ...(request.stampedStderr ? { latencies } : {}) };
    }
    case "load": {
      const started = performance.now();
      let next = 0;
      let done = 0;
      let errors = 0;
      const latencies: number[] = [];
      const loop = async () => {
        while (performance.now() - started < request.durationMs! && next < request.maxCalls!) {
          next++;
          try {
            const run = await runOnce(request.kind!, request.skill!, "{}");
            if (succeeded(run)) {
              done++;
              latencies.push(run.ms);
            } else errors++;
          } catch {
            errors++;
          }
        }
      };
      await Promise.all(Array.from({ length: request.clients! }, loop));
      return { done, errors, elapsedMs: performance.now() - started, latencies };
    }
    case "argv":
      return ready().bwrapArgv(request.skill!);
    case "ballast": {
      // Filled, so the pages are resident (a fork copies the page tables of what is mapped and touched).
      ballast = Array.from({ length: Math.max(0, Math.round(request.mib ?? 0)) }, () => Buffer.alloc(1 << 20, 1));
      return process.memoryUsage().rss / 2 ** 20;
    }
    case "close":
      await spawner?.close();
      return true;
  }
}

const answer = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line) as Request;
  handle(request).then(
    (result) => {
      answer({ id: request.id, result });
      if (request.op === "close") process.exit(0);
    },
    (error: unknown) => answer({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.stdin.on("end", () => process.exit(0));
