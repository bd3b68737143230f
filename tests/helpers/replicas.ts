import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createWorkerToken } from "@/lib/server/workers/worker-tokens";

const REPLICA_SERVER = path.resolve(__dirname, "replica-server.mjs");
const WORKER_BUNDLE = path.resolve(__dirname, "../../.worker/worker.mjs");

/** A process of a multi-replica test: a console replica or a worker, with what it printed. */
export interface TestProcess {
  name: string;
  child: ChildProcess;
  output: string[];
  /** Sends `signal` (default SIGTERM) and resolves once the process exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A console replica (tests/helpers/replica-server.mjs) and its URL. */
export interface TestReplica extends TestProcess {
  url: string;
}

/** This test process's settings for a child: none of vitest's own variables, `extra` on top. */
function childEnvironment(extra: Record<string, string>, drop: readonly string[] = []): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && !drop.includes(name))) as NodeJS.ProcessEnv;
  return { ...env, ...extra };
}

/** Waits until `output` matches `pattern` (checked every 50 ms); throws with the output when the child exits first or after `timeoutMs`. */
async function waitForOutput(started: TestProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = started.output.join("");
    const match = pattern.exec(text);
    if (match) return match;
    if (started.child.exitCode !== null || started.child.signalCode !== null) throw new Error(`${started.name} exited (${started.child.exitCode ?? started.child.signalCode}) before printing ${pattern}:\n${text}`);
    if (Date.now() > deadline) throw new Error(`${started.name} did not print ${pattern} within ${timeoutMs} ms:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function track(name: string, child: ChildProcess): TestProcess {
  const output: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    name,
    child,
    output,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * Starts a console replica as its own process on the test console's settings (the environment
 * setUpTestConsole wrote: the same PostgreSQL database, roots and secrets), `env` on top. Resolves
 * once it serves (first scan done, bus listening). Throws with its output when it exits or takes 60 s.
 */
export async function startReplica(name: string, env: Record<string, string> = {}): Promise<TestReplica> {
  const child = spawn(process.execPath, [REPLICA_SERVER], { env: childEnvironment(env), stdio: ["ignore", "pipe", "pipe"] });
  const started = track(name, child);
  const [, url] = await waitForOutput(started, /replica: listening on (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
  return { ...started, url: url! };
}

/**
 * Signs in at `url` (`POST /api/v1/auth/login`) and returns the headers of a same-origin browser
 * request there carrying the session cookie (`cookie`, `origin`). Throws with the answer on failure.
 */
export async function signInAt(url: string, email: string, password: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json", origin: url }, body: JSON.stringify({ email, password }) });
  if (response.status !== 200) throw new Error(`sign-in of ${email} at ${url} failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  return { cookie, origin: url };
}

/** Sends a JSON request to a replica with `headers` (a session's, from signInAt: their origin is kept only when it is this replica's). */
export function callReplica(url: string, method: string, pathname: string, headers: Record<string, string>, body?: unknown): Promise<Response> {
  return fetch(`${url}${pathname}`, {
    method,
    headers: { ...headers, origin: url, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * Starts a worker as its own process against `consoleUrl`, with a new worker token of `labels`, no
 * database credentials and no console secret in its environment, `env` on top (its roots:
 * ONGRID_SKILLS_EXTERNAL_DIRS, SKILLS_PATH; WORKER_STATE_DIR). By default the built program
 * (.worker/worker.mjs) with the token on its stdin; with `viaNpm`, the operator's command itself —
 * `npm run worker` with WORKER_TOKEN_FILE naming a file of mode 0600 in `tokenDir` (README: the
 * systemd unit and the Compose file run this). Resolves once it registered.
 */
export async function startWorkerProcess(consoleUrl: string, name: string, labels: string[], env: Record<string, string>, options: { viaNpm?: { tokenDir: string } } = {}): Promise<TestProcess> {
  const { token } = await createWorkerToken({ email: "test@console.local", userId: null }, { name, labels });
  const settings = childEnvironment({ CONSOLE_URL: consoleUrl, WORKER_NAME: name, ...env }, ["DATABASE_URL", "CONSOLE_AUTH_SECRET", "CONSOLE_ADMIN_PASSWORD", "npm_lifecycle_event"]);
  let child: ChildProcess;
  if (options.viaNpm) {
    const tokenFile = path.join(options.viaNpm.tokenDir, `${name}.token`);
    fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    child = spawn("npm", ["run", "--silent", "worker"], { cwd: path.resolve(__dirname, "../.."), env: { ...settings, WORKER_TOKEN_FILE: tokenFile }, stdio: ["ignore", "pipe", "pipe"] });
  } else {
    child = spawn(process.execPath, [WORKER_BUNDLE], { env: settings, stdio: ["pipe", "pipe", "pipe"] });
  }
  const started = track(name, child);
  if (!options.viaNpm) child.stdin!.write(`${token}\n`);
  await waitForOutput(started, new RegExp(`worker: ${name} registered`), 60_000);
  return started;
}

/**
 * Reads a `text/event-stream` answer to its end, calling `onEvent` with each event as it arrives
 * (`id`, `event`, parsed `data`) and the time (ms since the epoch) it was read.
 */
export async function followEventStream(response: Response, onEvent: (event: { id: string | null; event: string; data: unknown }, receivedAt: number) => void): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    const receivedAt = Date.now();
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | null = null;
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length > 0) onEvent({ id, event, data: JSON.parse(data.join("\n")) as unknown }, receivedAt);
    }
  }
}

/** The value at `fraction` (0…1) of `values` sorted ascending (nearest rank). */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}
