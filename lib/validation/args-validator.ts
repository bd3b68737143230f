import { Worker } from "node:worker_threads";
import type { JsonSchema } from "@/lib/types/skill";
import canonicalize from "canonicalize";
import { parseDocument } from "yaml";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "./json-depth";
import { moduleSearchPaths, THREAD_PREAMBLE_SOURCE } from "./thread-preamble";
import { AJV_OPTIONS, COMPILES_PER_INSTANCE, dialectOf, validateArgs, type AjvError, type SchemaDialect } from "./ajv";

/**
 * Longest time, in ms, one call's args may take to validate. A schema is written by the skill's author
 * but the args by any client, and some honest-looking schemas take exponential or quadratic time on
 * hostile args: a `pattern` such as `^(\w+\s?)*$` backtracks for minutes on 30 characters, and
 * `uniqueItems` compares every pair of a 700 000-item array. Past this budget the args are refused.
 */
export const ARGS_VALIDATION_BUDGET_MS = 2000;

/** Most ajv errors returned for one call (allErrors on a huge array would otherwise list millions). */
export const MAX_REPORTED_ERRORS = 100;

/** Heap the validation worker may use, in MiB; past it the args are refused (8 MiB of JSON fits many times). */
const WORKER_HEAP_MB = 512;

/** How long the worker may take to load ajv before the console gives up on it and validates in-thread. */
const WORKER_START_MS = 15_000;

/**
 * The worker: plain CommonJS (not bundled), loading ajv from the project's node_modules like `node -e`
 * does (from the working directory, else from beside the server script), configured with AJV_OPTIONS and ajv-formats exactly as lib/validation/ajv.ts does. It compiles
 * each schema once (by the id the main thread gave it, newest 256 kept) and answers every job with
 * `{id, ok: true, canonical}` (the args' RFC 8785 canonical JSON, by the canonicalize package the
 * digest uses), `{id, ok: false, errors}` or `{id, failure}`.
 */
// Nice 10 and `load` (thread-preamble.ts): parsing, validating and canonicalizing megabytes of args
// here must not take a CPU from the main thread.
const WORKER_SOURCE = THREAD_PREAMBLE_SOURCE + String.raw`
const Ajv = load("ajv"), Ajv2019 = load("ajv/dist/2019"), Ajv2020 = load("ajv/dist/2020"), addFormats = load("ajv-formats");
// canonicalize is an ES module only (no "require" export): found in node_modules, imported by its file.
const esModuleFile = (name) => {
  const fs = require("node:fs"), path = require("node:path");
  for (const start of [process.cwd(), ...workerData.searchPaths]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const manifest = path.join(dir, "node_modules", name, "package.json");
      if (fs.existsSync(manifest)) {
        const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
        const exported = pkg.exports && pkg.exports["."];
        return path.join(dir, "node_modules", name, (exported && (exported.import || exported.default)) || pkg.main);
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new Error("cannot find the package " + name);
};
let canonicalize = null;
const options = Object.assign({}, workerData.options, { logger: false });
const instances = new Map();
const validators = new Map();
// Ajv keeps what it compiled for the life of an instance, so each one is retired after a number of
// compiles (COMPILES_PER_INSTANCE in ajv.ts); validators made earlier keep working.
function ajvFor(dialect) {
  let entry = instances.get(dialect);
  if (!entry || entry.compiles >= workerData.compilesPerInstance) {
    const Dialect = dialect === "2020-12" ? Ajv2020 : dialect === "2019-09" ? Ajv2019 : Ajv;
    entry = { ajv: new Dialect(options), compiles: 0 };
    addFormats(entry.ajv);
    instances.set(dialect, entry);
  }
  entry.compiles++;
  return entry.ajv;
}
function validatorFor(job) {
  let validate = validators.get(job.schemaId);
  if (validate) return validate;
  const ajv = ajvFor(job.dialect);
  const known = new Set(Object.keys(ajv.refs));
  try {
    validate = ajv.compile(job.schema);
  } finally {
    ajv.removeSchema(job.schema);
    for (const ref of Object.keys(ajv.refs)) if (!known.has(ref)) delete ajv.refs[ref];
  }
  validators.set(job.schemaId, validate);
  if (validators.size > 256) validators.delete(validators.keys().next().value);
  return validate;
}
// Iterative, like lib/validation/json-depth.ts exceedsJsonDepth (ajv and canonicalize recurse).
function tooDeep(value, maxDepth) {
  const stack = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop();
    if (typeof current !== "object" || current === null) continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
let YAML = null;
function parseYamlJob(job) {
  YAML = YAML || load("yaml");
  const document = YAML.parseDocument(job.yaml.text, job.yaml.options);
  const problem = document.errors[0] || document.warnings[0];
  if (problem) return { id: job.id, ok: false, refusal: "json", message: String(problem.message) };
  try {
    return { id: job.id, ok: true, canonical: "", value: document.toJS({ maxAliasCount: job.yaml.maxAliasCount }) };
  } catch (error) {
    return { id: job.id, ok: false, refusal: "json", message: String(error && error.message) };
  }
}
function parseJsonJob(job) {
  let value;
  try {
    value = JSON.parse(new TextDecoder().decode(job.json.bytes));
  } catch (error) {
    return { id: job.id, ok: false, refusal: "json", message: String(error && error.message) };
  }
  const oversized = {};
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, max] of Object.entries(job.json.caps)) {
      const field = value[key];
      if (typeof field !== "string" || field.length <= max / 3) continue;
      const bytes = Buffer.byteLength(field, "utf8");
      if (bytes <= max) continue;
      oversized[key] = bytes;
      value[key] = null;
    }
  }
  return { id: job.id, ok: true, canonical: "", value: { value, oversized } };
}
parentPort.on("message", (job) => {
  let reply;
  if (job.json) {
    try {
      reply = parseJsonJob(job);
    } catch (error) {
      reply = { id: job.id, failure: String((error && error.message) || error) };
    }
    parentPort.postMessage(reply);
    return;
  }
  if (job.yaml) {
    try {
      reply = parseYamlJob(job);
    } catch (error) {
      reply = { id: job.id, failure: String((error && error.message) || error) };
    }
    parentPort.postMessage(reply);
    return;
  }
  try {
    let args;
    try {
      args = JSON.parse(job.argsJson);
    } catch (error) {
      reply = { id: job.id, ok: false, refusal: "json", message: String(error && error.message) };
    }
    if (reply) {
      // not JSON
    } else if (args === null || typeof args !== "object" || Array.isArray(args)) reply = { id: job.id, ok: false, refusal: "type" };
    else if (tooDeep(args, workerData.maxDepth)) reply = { id: job.id, ok: false, refusal: "depth" };
    else {
      const validate = validatorFor(job);
      const ok = validate(args) === true;
      if (!ok) reply = { id: job.id, ok, errors: (validate.errors || []).slice(0, workerData.maxErrors) };
      else if (!job.canonical) reply = { id: job.id, ok, canonical: "" };
      else {
        // RFC 8785 has no form for what JSON.parse accepts beyond it (1e400 is Infinity, a lone surrogate).
        try {
          const canonical = canonicalize(args);
          // Args sent canonical already (compact, keys sorted) come back as null: the main thread
          // keeps its own copy rather than receive megabytes of the same text.
          reply = canonical === job.argsJson ? { id: job.id, ok, canonical: null } : { id: job.id, ok, canonical };
        } catch (error) {
          reply = { id: job.id, ok: false, refusal: "canonical", message: String(error && error.message) };
        }
      }
    }
  } catch (error) {
    reply = { id: job.id, failure: String((error && error.message) || error) };
  }
  parentPort.postMessage(reply);
});
import(require("node:url").pathToFileURL(esModuleFile("canonicalize")).href).then(
  (loaded) => {
    canonicalize = loaded.default;
    parentPort.postMessage({ ready: true });
  },
  (error) => {
    throw error;
  },
);
`;

interface Job {
  id: number;
  schema: JsonSchema;
  schemaId: number;
  dialect: SchemaDialect;
  argsJson: string;
  /** Whether valid args come back with their canonical text (a result check needs none). */
  canonical: boolean;
  /** A YAML document to parse instead (parseYamlOffThread): no schema, no args. */
  yaml?: { text: string; options: Record<string, unknown>; maxAliasCount: number };
  /** A JSON document's UTF-8 bytes to parse instead (parseJsonOffThread), with the top-level string fields capped in UTF-8 bytes. */
  json?: { bytes: Uint8Array; caps: Record<string, number> };
  budgetMs: number;
  resolve(validation: CanonicalArgsValidation): void;
  reject(error: unknown): void;
}

/**
 * Why args text was refused: before its schema was asked, not JSON, not an object, nested deeper than
 * MAX_JSON_DEPTH; after, `canonical`: valid, but without an RFC 8785 form (a number beyond a double,
 * parsed as Infinity; a lone surrogate), so it cannot be digested.
 */
export type ArgsTextRefusal = "json" | "type" | "depth" | "canonical";

type WorkerReply =
  | { ready: true }
  | { id: number; ok: true; canonical: string | null; value?: unknown }
  | { id: number; ok: false; errors: AjvError[] }
  | { id: number; ok: false; refusal: ArgsTextRefusal; message?: string }
  | { id: number; failure: string };

/**
 * A validation's answer: for valid args also their canonical JSON text (RFC 8785), made in the same
 * pass; for refused ones the schema's errors, or (`refusal`) why the text never reached the schema,
 * with the parser's `message` for text that is not JSON.
 */
export type CanonicalArgsValidation = { ok: true; canonical: string; value?: unknown } | { ok: false; errors: AjvError[]; refusal?: ArgsTextRefusal; message?: string };

interface ValidatorState {
  worker: Worker | null;
  ready: boolean;
  /** True once the worker could not start: args are then validated in-thread, without a time bound. */
  unavailable: boolean;
  queue: Job[];
  /** Jobs posted to the worker and not answered yet, oldest (the one it works on) first. */
  inFlight: Job[];
  /** Fires when the oldest job in flight has run out of its budget. */
  headTimer: NodeJS.Timeout | null;
  startTimer: NodeJS.Timeout | null;
  nextJobId: number;
  nextSchemaId: number;
  schemaIds: WeakMap<object, number>;
}

// On globalThis so every Next.js route bundle shares one worker.
const STATE_KEY = Symbol.for("skill-console.args-validator");
const holder = globalThis as unknown as { [STATE_KEY]?: ValidatorState };
const state = (holder[STATE_KEY] ??= {
  worker: null,
  ready: false,
  unavailable: false,
  queue: [],
  inFlight: [],
  headTimer: null,
  startTimer: null,
  nextJobId: 1,
  nextSchemaId: 1,
  schemaIds: new WeakMap(),
});

function schemaIdOf(schema: JsonSchema): number {
  let id = state.schemaIds.get(schema);
  if (id === undefined) {
    id = state.nextSchemaId++;
    state.schemaIds.set(schema, id);
  }
  return id;
}

function refused(message: string, params: Record<string, unknown>): CanonicalArgsValidation {
  return { ok: false, errors: [{ instancePath: "", schemaPath: "#", keyword: "budget", params, message }] };
}

/**
 * Parses `text` as the JSON object args (or a result) must be, on the calling thread: the object, or the
 * refusal — not JSON (with the parser's message), not an object, nested deeper than MAX_JSON_DEPTH.
 */
function parseObjectText(text: string): { value: object } | { refusal: CanonicalArgsValidation } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { refusal: { ok: false, errors: [], refusal: "json", message: (error as Error).message } };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { refusal: { ok: false, errors: [], refusal: "type" } };
  if (exceedsJsonDepth(value, MAX_JSON_DEPTH)) return { refusal: { ok: false, errors: [], refusal: "depth" } };
  return { value };
}

function validateInThread(job: Job): void {
  if (job.yaml) return parseYamlInThread(job);
  if (job.json) return parseJsonInThread(job);
  try {
    const parsed = parseObjectText(job.argsJson);
    if ("refusal" in parsed) return job.resolve(parsed.refusal);
    const args = parsed.value;
    const validation = validateArgs(job.schema, args);
    if (validation.ok && job.canonical) {
      try {
        return job.resolve({ ok: true, canonical: canonicalize(args) ?? "{}" });
      } catch (error) {
        return job.resolve({ ok: false, errors: [], refusal: "canonical", message: (error as Error).message });
      }
    }
    job.resolve(validation.ok ? { ok: true, canonical: "" } : { ok: false, errors: validation.errors.slice(0, MAX_REPORTED_ERRORS) });
  } catch (error) {
    job.reject(error);
  }
}

function giveUpOnWorker(reason: string): void {
  console.error(`args validation: the validation worker is unavailable (${reason}); validating in the console's own thread, without a time bound`);
  state.unavailable = true;
  stopWorker();
  const pending = [...state.inFlight.splice(0), ...state.queue];
  clearHeadTimer();
  state.queue = [];
  for (const job of pending) validateInThread(job);
}

function stopWorker(): void {
  const worker = state.worker;
  state.worker = null;
  state.ready = false;
  if (state.startTimer) clearTimeout(state.startTimer);
  state.startTimer = null;
  if (worker) {
    worker.removeAllListeners();
    worker.on("error", () => undefined);
    void worker.terminate();
  }
}

function startWorker(): void {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { options: AJV_OPTIONS, maxErrors: MAX_REPORTED_ERRORS, maxDepth: MAX_JSON_DEPTH, compilesPerInstance: COMPILES_PER_INSTANCE, searchPaths: moduleSearchPaths() },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: false,
      stderr: false,
    });
  } catch (error) {
    giveUpOnWorker(error instanceof Error ? error.message : String(error));
    return;
  }
  state.worker = worker;
  state.ready = false;
  state.startTimer = setTimeout(() => {
    if (state.worker === worker && !state.ready) giveUpOnWorker(`it did not start within ${WORKER_START_MS} ms`);
  }, WORKER_START_MS);
  state.startTimer.unref();
  worker.on("message", (reply: WorkerReply) => {
    if (state.worker !== worker) return;
    if ("ready" in reply) {
      state.ready = true;
      if (state.startTimer) clearTimeout(state.startTimer);
      state.startTimer = null;
      pump();
      return;
    }
    // The worker answers in the order the jobs were posted.
    const job = state.inFlight[0];
    if (!job || job.id !== reply.id) return;
    state.inFlight.shift();
    armHeadTimer();
    if (state.inFlight.length === 0) worker.unref();
    if ("failure" in reply) job.reject(new Error(`args validation failed: ${reply.failure}`));
    else if (reply.ok) job.resolve({ ok: true, canonical: reply.canonical ?? job.argsJson, value: reply.value });
    else if ("refusal" in reply) job.resolve({ ok: false, errors: [], refusal: reply.refusal, message: reply.message });
    else job.resolve({ ok: false, errors: reply.errors ?? [] });
    pump();
  });
  const onDeath = (reason: string, outOfMemory: boolean) => {
    if (state.worker !== worker) return;
    if (!state.ready) return giveUpOnWorker(reason);
    stopWorker();
    // The oldest job in flight is the one the worker was on; the others were not started and go back first in line.
    const [head, ...unstarted] = state.inFlight.splice(0);
    clearHeadTimer();
    state.queue.unshift(...unstarted);
    if (head) {
      if (outOfMemory) head.resolve(refused(`validating the args ran out of memory (${WORKER_HEAP_MB} MiB)`, { limitMb: WORKER_HEAP_MB }));
      else head.reject(new Error(`args validation worker stopped: ${reason}`));
    }
    pump();
  };
  worker.on("error", (error: Error & { code?: string }) => onDeath(error.message, error.code === "ERR_WORKER_OUT_OF_MEMORY"));
  worker.on("exit", (code) => onDeath(`exited with code ${code}`, false));
}

/** Longest args text (UTF-16 units) posted to the worker while other jobs are in flight; a longer job, a YAML or a JSON document goes alone. */
const PIPELINED_MAX_LENGTH = 64 * 1024;
/** Most jobs posted to the worker before its first answer. */
const MAX_IN_FLIGHT = 64;

/** Whether `job` may be posted while others are in flight: small args, nothing to parse besides. */
function isSmallJob(job: Job): boolean {
  return !job.yaml && !job.json && job.argsJson.length <= PIPELINED_MAX_LENGTH;
}

function clearHeadTimer(): void {
  if (state.headTimer) clearTimeout(state.headTimer);
  state.headTimer = null;
}

/**
 * Starts the budget of the oldest job in flight — the one the worker works on, since it answers in
 * order — from now: when it runs out, that job is refused, the worker is terminated and the jobs
 * posted after it are sent again to a new one.
 */
function armHeadTimer(): void {
  clearHeadTimer();
  const head = state.inFlight[0];
  if (!head) return;
  state.headTimer = setTimeout(() => {
    if (state.inFlight[0] !== head) return;
    state.headTimer = null;
    const unstarted = state.inFlight.splice(0).slice(1);
    stopWorker();
    state.queue.unshift(...unstarted);
    head.resolve(refused(`validating the args took longer than ${head.budgetMs} ms; they are refused`, { limitMs: head.budgetMs }));
    pump();
  }, head.budgetMs);
}

/**
 * Posts queued jobs to the worker. Small ones are posted while others are in flight (up to
 * MAX_IN_FLIGHT), so sixteen calls at once cost the worker's round trip once, not sixteen times in a
 * row (issue 9 point 6: the call path); a large one goes alone, so a job that runs out of time or heap
 * is the one it is blamed on.
 */
function pump(): void {
  if (state.queue.length === 0) return;
  if (state.unavailable) {
    for (const job of state.queue.splice(0)) validateInThread(job);
    return;
  }
  if (!state.worker) return startWorker();
  if (!state.ready) return;
  const worker = state.worker;
  while (state.queue.length > 0) {
    const next = state.queue[0]!;
    if (state.inFlight.length > 0 && (state.inFlight.length >= MAX_IN_FLIGHT || !isSmallJob(next) || !isSmallJob(state.inFlight[0]!))) return;
    const job = state.queue.shift()!;
    state.inFlight.push(job);
    if (state.inFlight.length === 1) {
      armHeadTimer();
      worker.ref();
    }
    // A document's bytes that own their whole buffer are moved to the thread, not copied (tens of megabytes).
    const bytes = job.json?.bytes;
    const transfer = bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : [];
    worker.postMessage({ id: job.id, schemaId: job.schemaId, dialect: job.dialect, schema: job.schema, argsJson: job.argsJson, canonical: job.canonical, yaml: job.yaml, json: job.json }, transfer);
  }
}

/**
 * Validates a call's args, given as the exact JSON text the child will receive, against a skill's
 * schema, with bounded time (DESIGN.md wire protocol: args are validated before spawning; invalid
 * args never start a process). Same rules as validateArgs (same Ajv options and formats), but the
 * work runs in a worker thread, in order (small jobs posted together: pump): a job past `budgetMs` (ARGS_VALIDATION_BUDGET_MS)
 * has its worker terminated and answers `{ok: false}` with one error whose keyword is `budget`, as
 * does one that exhausts the worker's heap; so a catastrophic pattern or a quadratic keyword costs the
 * client its request, never the console its event loop. At most MAX_REPORTED_ERRORS errors are
 * returned. Valid args come back with their canonical JSON text (RFC 8785), made in the same pass off
 * the main thread (issue 10 point 1: the digest's canonical form is computed once per call, and never
 * on the main thread for large args). `argsJson` is the args' text as the client sent it: text that is
 * not JSON, not an object or nested deeper than MAX_JSON_DEPTH answers `{ok: false, refusal}` before
 * the schema is asked, so the main thread never needs to parse args at all.
 * If the worker cannot be started at all (e.g. node_modules is not beside the working directory), the
 * console logs it once and validates in its own thread, as before. Rejects only on an internal failure
 * (a schema that no longer compiles, a crashed worker).
 */
export function validateArgsJson(schema: JsonSchema, argsJson: string, budgetMs: number = ARGS_VALIDATION_BUDGET_MS, canonical = true): Promise<CanonicalArgsValidation> {
  return new Promise<CanonicalArgsValidation>((resolve, reject) => {
    const job: Job = { id: state.nextJobId++, schema, schemaId: schemaIdOf(schema), dialect: "draft-07", argsJson, canonical, budgetMs, resolve, reject };
    try {
      job.dialect = dialectOf(schema);
    } catch (error) {
      reject(error);
      return;
    }
    state.queue.push(job);
    pump();
  });
}

/** Longest text (in UTF-16 units) checkJsonObjectText parses on the calling thread. */
const IN_THREAD_CHECK_MAX_LENGTH = 64 * 1024;

/** Any JSON object: the schema a result is checked against. */
const ANY_OBJECT: JsonSchema = { type: "object" };

/** The validation thread ran out of time or heap on a check: the text may be fine (the machine was loaded); check again later. */
export class ValidationBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ValidationBusyError";
  }
}

/**
 * Checks, in the validation thread, that `text` is one JSON object nested at most MAX_JSON_DEPTH
 * levels (what a call's result must be before it is stored and later served unparsed:
 * lib/server/http/stored-json.ts), within `budgetMs` of the thread's time. Resolves null when it is,
 * else why not, in words. Rejects with
 * ValidationBusyError when the thread's time or memory budget ran out first (a verdict on the machine's
 * load, not on the text: a worker's result must not be dropped for it).
 */
export async function checkJsonObjectText(text: string, budgetMs: number = ARGS_VALIDATION_BUDGET_MS): Promise<string | null> {
  // A small text is parsed here (well under a millisecond) rather than queued behind other validations.
  const validation = text.length <= IN_THREAD_CHECK_MAX_LENGTH ? checkObjectTextHere(text) : await validateArgsJson(ANY_OBJECT, text, budgetMs, false);
  if (validation.ok) return null;
  if (validation.refusal === "json") return `it is not JSON (${validation.message ?? "unparsable"})`;
  if (validation.refusal === "type") return "it is not a JSON object";
  if (validation.refusal === "depth") return `it nests deeper than ${MAX_JSON_DEPTH} levels`;
  // The only refusals left: the validation's time or memory budget (a `budget` error).
  throw new ValidationBusyError(validation.errors[0]?.message ?? "it could not be checked");
}

function checkObjectTextHere(text: string): CanonicalArgsValidation {
  const parsed = parseObjectText(text);
  return "refusal" in parsed ? parsed.refusal : { ok: true, canonical: "" };
}

function parseYamlInThread(job: Job): void {
  const yaml = job.yaml!;
  try {
    const document = parseDocument(yaml.text, yaml.options);
    const problem = document.errors[0] ?? document.warnings[0];
    if (problem) return job.resolve({ ok: false, errors: [], refusal: "json", message: problem.message });
    job.resolve({ ok: true, canonical: "", value: document.toJS({ maxAliasCount: yaml.maxAliasCount }) });
  } catch (error) {
    job.resolve({ ok: false, errors: [], refusal: "json", message: (error as Error).message });
  }
}

/** Longest time, in ms, one YAML document may take to parse in the validation thread. */
export const YAML_PARSE_BUDGET_MS = 2000;

/**
 * Parses a YAML document (the `yaml` package's parseDocument with `options`, then toJS with
 * `maxAliasCount`) in the validation thread, with bounded time and heap, as args are validated (issue
 * 10 point 1: a persona import of 256 KiB took seconds of the event loop). Resolves `{ok: true,
 * value}`, or `{ok: false, message}` for a document that does not parse (its first error or warning,
 * as the library words it), takes longer than YAML_PARSE_BUDGET_MS, or exhausts the thread's heap.
 */
export async function parseYamlOffThread(text: string, options: Record<string, unknown>, maxAliasCount: number): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const outcome = await new Promise<CanonicalArgsValidation>((resolve, reject) => {
    state.queue.push({ id: state.nextJobId++, schema: {}, schemaId: 0, dialect: "draft-07", argsJson: "", canonical: false, yaml: { text, options, maxAliasCount }, budgetMs: YAML_PARSE_BUDGET_MS, resolve, reject });
    pump();
  });
  if (outcome.ok) return { ok: true, value: outcome.value };
  const budget = outcome.errors.find((error) => error.keyword === "budget");
  return { ok: false, message: budget ? budget.message!.replace("validating the args", "parsing the YAML").replace("they are refused", "it is refused") : (outcome.message ?? "it does not parse") };
}

function parseJsonInThread(job: Job): void {
  const { bytes, caps } = job.json!;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
  } catch (error) {
    return job.resolve({ ok: false, errors: [], refusal: "json", message: (error as Error).message });
  }
  job.resolve({ ok: true, canonical: "", value: { value, oversized: nullOversizedStrings(value, caps) } });
}

/**
 * Sets to null each top-level string field of `value` (an object; anything else is left alone) named
 * in `caps` whose UTF-8 length passes its cap, in bytes. Returns the sizes of those it nulled, by
 * name. The validation thread's own copy of this rule is in WORKER_SOURCE (parseJsonJob).
 */
export function nullOversizedStrings(value: unknown, caps: Record<string, number>): Record<string, number> {
  const oversized: Record<string, number> = {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) return oversized;
  const holder = value as Record<string, unknown>;
  for (const [key, max] of Object.entries(caps)) {
    const field = holder[key];
    if (typeof field !== "string" || field.length <= max / 3) continue;
    const bytes = Buffer.byteLength(field, "utf8");
    if (bytes <= max) continue;
    oversized[key] = bytes;
    holder[key] = null;
  }
  return oversized;
}

/** Longest time, in ms, one JSON document may take to parse in the validation thread: this, plus JSON_PARSE_BUDGET_MS_PER_MIB per MiB of it. */
export const JSON_PARSE_BUDGET_MS = 2000;
/** More time, in ms, per MiB of the document (a 24 MB body took over 2 s in the thread with both cores busy). */
export const JSON_PARSE_BUDGET_MS_PER_MIB = 250;

/**
 * What parseJsonOffThread found: the value, with each capped field past its cap set to null and its
 * size (bytes) in `oversized`; or why not — `busy` when it ran out of time or heap (the document may be
 * fine: the machine was loaded), else it does not parse.
 */
export type OffThreadJson = { ok: true; value: unknown; oversized: Record<string, number> } | { ok: false; message: string; busy: boolean };

/**
 * Parses the UTF-8 JSON document `bytes` in the validation thread, with bounded time and heap (issue 10
 * point 1: a worker's finish report may carry a result of megabytes beside its lines, and its 31 MB
 * of `é` held the event loop 275 ms in toString and JSON.parse). A top-level string field named in
 * `caps` whose UTF-8 length passes its cap (bytes) comes back null, its length in `oversized`, so that
 * what was too large to keep never crosses back to the main thread. `bytes` that own their whole
 * buffer are moved to the thread (unusable here afterwards). Resolves `{ok: false, message}` for a
 * document that does not parse (the parser's message), or, with `busy`, one that takes longer than
 * JSON_PARSE_BUDGET_MS (+ JSON_PARSE_BUDGET_MS_PER_MIB per MiB) or exhausts the thread's heap.
 */
export async function parseJsonOffThread(bytes: Uint8Array, caps: Record<string, number>): Promise<OffThreadJson> {
  const outcome = await new Promise<CanonicalArgsValidation>((resolve, reject) => {
    const budgetMs = Math.round(JSON_PARSE_BUDGET_MS + (JSON_PARSE_BUDGET_MS_PER_MIB * bytes.byteLength) / (1024 * 1024));
    state.queue.push({ id: state.nextJobId++, schema: {}, schemaId: 0, dialect: "draft-07", argsJson: "", canonical: false, json: { bytes, caps }, budgetMs, resolve, reject });
    pump();
  });
  if (outcome.ok) return { ok: true, ...(outcome.value as { value: unknown; oversized: Record<string, number> }) };
  const budget = outcome.errors.find((error) => error.keyword === "budget");
  if (budget) return { ok: false, busy: true, message: budget.message!.replace("validating the args", "parsing the body").replace("; they are refused", "") };
  return { ok: false, busy: false, message: outcome.message ?? "it does not parse" };
}
