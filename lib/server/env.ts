import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveDatabaseUrl, sqlitePathOf } from "./database-url";
import { parseSandboxAllowPaths } from "./executor/sandbox/sandbox-declaration";
import { parseTrustedKeys, type PackTrustedKey } from "./packs/pack-signature";
import { pathsOverlap } from "./skills/allowlist-roots";
import { sandboxHiddenPaths } from "./skills/sandbox-allowance";
import { DEFAULT_SKILL_FOLDER_LIMITS, type SkillFolderLimits } from "./skills/skill-folder";

/**
 * The console's settings, read from the environment in one place (STYLE.md: env.ts is the only reader of
 * process.env). Every setting has a safe default so `npm start` works with none set (DESIGN.md
 * "Configuration"). Sizes are in bytes, durations in the unit their name says.
 */
export interface ConsoleConfig {
  /** Allow-list roots as written (absolute or not; the loader skips relative ones with a log line). */
  skillRoots: string[];
  /** True when ONGRID_SKILLS_EXTERNAL_DIRS was set; false when the bundled skills folder is the root. */
  externalRootsConfigured: boolean;
  /** Absolute path of the bundled/native skills folder (SKILLS_PATH, default ./skills). */
  skillsPath: string;
  /** Absolute path of the installed packs' folder (PACKS_PATH, default ./data/packs): packRoots.ts lays it out. */
  packsPath: string;
  /** Public keys whose ed25519 signatures a pack may carry (CONSOLE_PACK_TRUSTED_KEYS). */
  packTrustedKeys: PackTrustedKey[];
  /** Which unsigned packs staging accepts (PACKS_ALLOW_UNSIGNED): local sources only (default), all, or none. */
  packsAllowUnsigned: "local" | "always" | "never";
  /** Most bytes a pack may hold once unpacked, and most bytes of an upload (PACK_MAX_BYTES). */
  packMaxBytes: number;
  databaseUrl: string;
  /** PostgreSQL only: connections of this replica's pool (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  host: string;
  port: number;
  defaultTimeoutSeconds: number;
  killGraceMs: number;
  exitDrainMs: number;
  stdoutLimitBytes: number;
  stderrLimitBytes: number;
  stderrLineLimit: number;
  argsLimitBytes: number;
  /** Most JSON values a request body may hold (SKILL_ARGS_MAX_NODES), counted before parsing. */
  argsMaxNodes: number;
  maxConcurrentCalls: number;
  leaseMs: number;
  eventFlushMs: number;
  /** Absolute path of the folder for the console's own files (generated auth secret): ./data. */
  dataDir: string;
  /** Secret that signs session cookies (CONSOLE_AUTH_SECRET); null = generate one under dataDir. */
  authSecret: string | null;
  /** The 32-byte key that seals skill secrets (CONSOLE_SECRET_KEY); null = generate one under dataDir. */
  secretKey: Buffer | null;
  /** The first admin's email and password, used only while no user exists. */
  adminEmail: string;
  adminPassword: string | null;
  sessionTtlSeconds: number;
  secureCookies: boolean;
  /** Failed sign-ins allowed per account and address within loginWindowSeconds (ten times that per address). */
  loginMaxFailures: number;
  loginWindowSeconds: number;
  approvalTtlSeconds: number;
  /** The console's address as people reach it (CONSOLE_PUBLIC_URL, no trailing `/`), for links in webhook deliveries; null: links are paths. */
  publicUrl: string | null;
  /** How long one webhook delivery attempt may take, in ms (WEBHOOK_TIMEOUT_MS). */
  webhookTimeoutMs: number;
  /** Delay before a failed webhook delivery's first retry, in ms (WEBHOOK_RETRY_FIRST_MS, at most 30 s); each later one waits three times longer, at most an hour. */
  webhookRetryFirstMs: number;
  /** Interpreters a native skill's script may run under (SKILL_SCRIPT_INTERPRETERS; seed 004 task 6.1 allow-list). */
  scriptInterpreters: string[];
  /** Largest resource file served whole by level 3 (`GET …/resources/{path}`, skill_read_resource), in bytes. */
  resourceLimitBytes: number;
  /** Whether `npm start` runs a local worker beside the console (CONSOLE_LOCAL_WORKER). */
  localWorker: boolean;
  /** Whether the console watches its roots and skills path and rescans what changed by itself (SKILLS_WATCH). */
  watchSkills: boolean;
  /** SKILL_SANDBOX_ALLOW_PATHS; null when unset (then only the bundled skills get what they declare). */
  sandboxAllowPaths: string[] | null;
  /** The console's own bundled skills folder (`<install>/skills`), whatever SKILLS_PATH says. */
  bundledSkillsDir: string;
  /** Paths every sandbox masks (sandboxHiddenPaths of the install folder, data, roots, skills path). */
  sandboxHiddenPaths: string[];
  /** Bounds of a skill folder a call can be bound to (SKILL_FOLDER_MAX_FILES, SKILL_FOLDER_MAX_BYTES). */
  skillFolderLimits: SkillFolderLimits;
}

/** How calls are sandboxed and limited on a worker (DESIGN.md "Workers and the sandbox", "Limits"). */
export interface SandboxSettings {
  mode: "auto" | "bwrap" | "none";
  /** Host uid the sandboxed process runs as when the worker runs as root. */
  uid: number;
  /** SKILL_SANDBOX_ALLOW_PATHS: what a skill's declaration may name; null when unset (none but the bundled skills' own). */
  allowPaths: string[] | null;
  memoryLimitMb: number;
  pidsLimit: number;
  /** Cores; null = unlimited. */
  cpuLimit: number | null;
}

/** A worker's settings (`npm run worker`, or the local worker `npm start` runs): DESIGN.md "Workers and the sandbox". */
export interface WorkerConfig {
  /** CONSOLE_URL: the console's base URL, e.g. http://127.0.0.1:3000. */
  consoleUrl: string;
  /** WORKER_NAME, default the host name. */
  name: string;
  /** WORKER_LABELS, comma-separated. */
  labels: string[];
  /** WORKER_CONCURRENCY: calls this worker runs at once. */
  concurrency: number;
  /** WORKER_STATE_DIR: the worker's snapshots and bookkeeping (default ./data/worker). */
  stateDir: string;
  skillRoots: string[];
  skillsPath: string;
  /** PACKS_PATH: the installed packs this worker scans (its `installed/` folder is one more root). */
  packsPath: string;
  /** SKILLS_WATCH: whether the worker watches its roots and rescans (and digests) only what changed. */
  watchSkills: boolean;
  defaultTimeoutSeconds: number;
  killGraceMs: number;
  exitDrainMs: number;
  stdoutLimitBytes: number;
  stderrLimitBytes: number;
  stderrLineLimit: number;
  scriptInterpreters: string[];
  skillFolderLimits: SkillFolderLimits;
  sandbox: SandboxSettings;
  /** Paths every sandbox of this worker masks. */
  sandboxHiddenPaths: string[];
  /** The install's bundled skills folder (`<install>/skills`). */
  bundledSkillsDir: string;
}

/** One documented environment variable: its name, default (as text) and meaning; the README table lists these. */
export interface SettingDoc {
  name: string;
  default: string;
  meaning: string;
}

/** Every environment variable the console reads, with its default (README "Configuration"). */
export const SETTINGS: readonly SettingDoc[] = [
  { name: "ONGRID_SKILLS_EXTERNAL_DIRS", default: "(unset: the SKILLS_PATH folder)", meaning: "Allow-list roots walked for skill.json, absolute paths separated by `:` or `,`. Setting it replaces the bundled root." },
  { name: "SKILLS_PATH", default: "./skills", meaning: "Bundled skills folder; the only allow-list root when ONGRID_SKILLS_EXTERNAL_DIRS is unset." },
  { name: "PACKS_PATH", default: "./data/packs", meaning: "Where skill packs are staged and installed; its `installed/` folder is one more root for both kinds of skill (after the others: a pack never shadows a skill of theirs)." },
  { name: "CONSOLE_PACK_TRUSTED_KEYS", default: "(none)", meaning: "Public keys a pack's `pack.sig` may be signed with: `name=key` pairs separated by `,`, each key an ed25519 public key as base64 (raw 32 bytes or SPKI DER) or a PEM file's base64 body." },
  { name: "PACKS_ALLOW_UNSIGNED", default: "local", meaning: "Unsigned packs accepted at staging: `local` (local folders, uploads by an admin, local git repositories), `always`, or `never`. A remote git source must be signed by a trusted key unless this is `always`." },
  { name: "PACK_MAX_BYTES", default: "67108864", meaning: "Most bytes a pack may hold unpacked (and a `.tar.gz` upload may send); a bigger pack is refused at staging." },
  { name: "SKILLS_WATCH", default: "true", meaning: "The console watches its allow-list roots and SKILLS_PATH and rescans a skill folder that changed on disk within 2 s, reading only what changed; `false` leaves changes to the Rescan button." },
  { name: "DATABASE_URL", default: "file:./data/console.db", meaning: "Database: a SQLite `file:` URL (one console) or a `postgresql://` URL (any number of replicas sharing it)." },
  { name: "DATABASE_POOL_SIZE", default: "10", meaning: "PostgreSQL only: connections each console replica keeps to the database (2 to 1000)." },
  { name: "HOST", default: "127.0.0.1", meaning: "Address the console listens on. Put it behind TLS (a reverse proxy) before listening beyond loopback." },
  { name: "PORT", default: "3000", meaning: "TCP port of the console." },
  { name: "SKILL_DEFAULT_TIMEOUT_SECONDS", default: "30", meaning: "Timeout of a skill whose manifest says 0 or nothing." },
  { name: "SKILL_KILL_GRACE_MS", default: "2000", meaning: "Time between TERM and KILL when a process group is stopped." },
  { name: "SKILL_EXIT_DRAIN_MS", default: "300", meaning: "After the direct child exits, how long its leftover group may keep writing before it is stopped." },
  { name: "SKILL_STDOUT_LIMIT_BYTES", default: "4194304", meaning: "Largest stdout (the result) a call may write; past it the call fails." },
  { name: "SKILL_STDERR_LIMIT_BYTES", default: "8388608", meaning: "Largest stderr timeline kept per call; past it the timeline ends with a truncation marker." },
  { name: "SKILL_STDERR_LINE_LIMIT", default: "250000", meaning: "Most stderr lines kept per call (a flood of empty lines is bounded by this, not by bytes); past it the timeline ends with a truncation marker." },
  { name: "SKILL_ARGS_LIMIT_BYTES", default: "8388608", meaning: "Largest args document accepted; larger requests answer 413." },
  { name: "SKILL_ARGS_MAX_NODES", default: "100000", meaning: "Most JSON values (objects, arrays, strings, numbers, literals) a request body may hold, counted as it streams in, before it is parsed; more answer 413." },
  { name: "SKILL_MAX_CONCURRENT_CALLS", default: "8", meaning: "Calls running at once; more wait as `queued`." },
  { name: "CALL_LEASE_MS", default: "15000", meaning: "Lease a console holds on its running calls; renewed every third of it. A call whose owner's lease lapsed is marked `interrupted`." },
  { name: "CALL_EVENT_FLUSH_MS", default: "250", meaning: "How often buffered timeline lines are written to the database (at most 1000)." },
  { name: "CONSOLE_AUTH_SECRET", default: "(generated into ./data/auth-secret)", meaning: "Secret that signs session cookies, at least 32 characters. Unset: one is generated on first start and kept in ./data/auth-secret (mode 0600)." },
  { name: "CONSOLE_SECRET_KEY", default: "(generated into ./data/secret-key)", meaning: "Key that seals skill secrets at rest (AES-256-GCM): 32 bytes as 64 hex digits or base64 (`openssl rand -base64 32`). Unset: one is generated on first use and kept in ./data/secret-key (mode 0600). Every replica needs the same key; `CONSOLE_SECRET_KEY_FILE` names a file holding it." },
  { name: "CONSOLE_AUTH_SECRET_FILE", default: "(none)", meaning: "A file holding CONSOLE_AUTH_SECRET, read by `npm start` when that is unset: keeps the secret out of every environment (npm's and the launcher's too)." },
  { name: "CONSOLE_ADMIN_EMAIL", default: "admin@console.local", meaning: "Email of the admin created on first start, when the database has no user." },
  { name: "CONSOLE_ADMIN_PASSWORD", default: "(random, printed once)", meaning: "Password of that first admin (at least 12 characters). Unset: a random one is printed once to the console output." },
  { name: "CONSOLE_ADMIN_PASSWORD_FILE", default: "(none)", meaning: "A file holding CONSOLE_ADMIN_PASSWORD, read by `npm start` when that is unset (see CONSOLE_AUTH_SECRET_FILE)." },
  { name: "CONSOLE_SESSION_TTL_SECONDS", default: "43200", meaning: "How long a sign-in lasts." },
  { name: "CONSOLE_SECURE_COOKIES", default: "false", meaning: "`true` marks the session cookie Secure: set it when the console is served over HTTPS." },
  { name: "LOGIN_MAX_FAILURES", default: "5", meaning: "Failed sign-ins allowed per account and address within LOGIN_WINDOW_SECONDS (ten times as many per address); then 429 with Retry-After." },
  { name: "LOGIN_WINDOW_SECONDS", default: "900", meaning: "Window over which failed sign-ins are counted." },
  { name: "SKILL_SCRIPT_INTERPRETERS", default: "bash,sh,python3", meaning: "Interpreters a native skill's script may run under (chosen by its extension or shebang), separated by `,`. A script needing another one is refused." },
  { name: "SKILL_RESOURCE_LIMIT_BYTES", default: "1048576", meaning: "Largest native skill resource file served by level 3 (resources API, skill_read_resource); larger files are described, not sent." },
  { name: "APPROVAL_TTL_SECONDS", default: "3600", meaning: "How long a dangerous call waits for its two signatures (and a mutating call for its confirmation) before it expires." },
  { name: "CONSOLE_PUBLIC_URL", default: "(none)", meaning: "The console's address as people reach it (e.g. `https://console.example.com`): webhook deliveries link to its pages there. Unset: the links are paths." },
  { name: "WEBHOOK_TIMEOUT_MS", default: "10000", meaning: "How long one webhook delivery attempt may take before it counts as failed and is retried (at most 120000)." },
  { name: "WEBHOOK_RETRY_FIRST_MS", default: "10000", meaning: "Delay before a failed webhook delivery's first retry (at most 30000); each later retry waits three times longer, at most an hour, until a day has passed since the event." },
  { name: "CONSOLE_LOCAL_WORKER", default: "true", meaning: "`npm start` also starts one local worker (stopped with the console); `false` leaves every call to workers started with `npm run worker`." },
  { name: "CONSOLE_URL", default: "(none; the local worker gets it from the console)", meaning: "Worker: the console's base URL, e.g. `http://10.0.0.5:3000`." },
  { name: "WORKER_TOKEN", default: "(none)", meaning: "Worker: its worker token (Workers page). Read once at start and never passed on." },
  { name: "WORKER_TOKEN_FILE", default: "(none)", meaning: "Worker: a file holding its token, read by `npm run worker` when WORKER_TOKEN is unset (keeps it out of npm's and the launcher's environment)." },
  { name: "WORKER_NAME", default: "(the host name)", meaning: "Worker: its name, shown on the Workers page and usable as a call's `target`." },
  { name: "WORKER_LABELS", default: "(none)", meaning: "Worker: labels, comma-separated; a call's `target` may name one." },
  { name: "WORKER_CONCURRENCY", default: "8 (or SKILL_MAX_CONCURRENT_CALLS)", meaning: "Worker: calls it runs at once; calls beyond every worker's capacity stay `queued`." },
  { name: "WORKER_STATE_DIR", default: "./data/worker", meaning: "Worker: where it keeps the read-only snapshots calls run from." },
  { name: "SKILL_SANDBOX", default: "auto", meaning: "`auto`: bubblewrap when it works on the host, else unsandboxed with a warning; `bwrap`: required (calls fail when it is missing); `none`: unsandboxed." },
  { name: "SKILL_SANDBOX_UID", default: "65534", meaning: "Host uid sandboxed calls run as (a worker running as root drops to it)." },
  { name: "SKILL_SANDBOX_HIDE_PATHS", default: "(none)", meaning: "Absolute paths, separated by `:` or `,`, that every sandbox hides besides the console's own (its folder, data, skill roots, /root, /home): a folder shows empty, a file reads empty. `npm start` and `npm run worker` add the files they read console secrets from (`CONSOLE_AUTH_SECRET_FILE`, `CONSOLE_SECRET_KEY_FILE`, `DATABASE_URL_FILE`, `WORKER_TOKEN_FILE`, …)." },
  { name: "SKILL_SANDBOX_ALLOW_PATHS", default: "(none; the bundled skills get what they declare)", meaning: "Absolute paths, separated by `:` or `,`, that a skill's `sandbox` declaration may name (for read, write or devices) — the path or anything below it. A skill asking for more is listed but unavailable. Unset: none, except that the skills bundled in the console's own `skills/` folder get what they declare." },
  { name: "SKILL_MEMORY_LIMIT_MB", default: "1024", meaning: "Memory of one call (all its processes); past it the call fails with the limit named." },
  { name: "SKILL_PIDS_LIMIT", default: "256", meaning: "Processes and threads of one call at once." },
  { name: "SKILL_CPU_LIMIT", default: "(unlimited)", meaning: "CPU of one call, in cores (e.g. `0.5`)." },
  { name: "SKILL_FOLDER_MAX_FILES", default: "2000", meaning: "Most files a skill's folder may hold: its digest covers all of them." },
  { name: "SKILL_FOLDER_MAX_BYTES", default: "67108864", meaning: "Most bytes a skill's folder may hold." },
];

/** Error thrown when a setting has a value the console cannot use. */
export class ConfigError extends Error {}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > max) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} must be a positive integer no larger than ${max}`);
  }
  return value;
}

function booleanSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(`${name}=${JSON.stringify(env[name])} must be true or false`);
}

/** Smallest accepted CONSOLE_AUTH_SECRET, in characters. */
export const MIN_AUTH_SECRET_LENGTH = 32;
/** Smallest accepted password, in characters (also CONSOLE_ADMIN_PASSWORD). */
export const MIN_PASSWORD_LENGTH = 12;

/** Where scripts/console-server.mjs leaves the secrets start.mjs handed it over a pipe (never an environment variable). */
export const HANDED_SECRETS_KEY = Symbol.for("skill-console.handed-secrets");

/**
 * The value of a console secret (CONSOLE_AUTH_SECRET, CONSOLE_ADMIN_PASSWORD, DATABASE_URL): the copy handed over a
 * pipe by `npm start` (so the long-lived server's environment never holds it; DESIGN.md, issue 9
 * point 2), else the variable, for a console started some other way (tests).
 */
function consoleSecret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const handed = (globalThis as Record<symbol, Record<string, string> | undefined>)[HANDED_SECRETS_KEY];
  if (handed && Object.prototype.hasOwnProperty.call(handed, name)) return handed[name];
  return env[name];
}

function authSecretOf(env: NodeJS.ProcessEnv): string | null {
  const raw = consoleSecret(env, "CONSOLE_AUTH_SECRET");
  if (raw === undefined || raw.trim() === "") return null;
  if (raw.trim().length < MIN_AUTH_SECRET_LENGTH) {
    throw new ConfigError(`CONSOLE_AUTH_SECRET must be at least ${MIN_AUTH_SECRET_LENGTH} characters`);
  }
  return raw.trim();
}

/**
 * A skill-secret key as written (CONSOLE_SECRET_KEY, or ./data/secret-key): 64 hex digits, or the
 * base64 / base64url of 32 bytes. Returns the 32 bytes; throws ConfigError naming `where` otherwise.
 */
export function parseSecretKey(raw: string, where: string): Buffer {
  const text = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (bytes.length === 32) return bytes;
  }
  throw new ConfigError(`${where} must hold a 32-byte key: 64 hex digits or 44 characters of base64 (e.g. the output of \`openssl rand -base64 32\`)`);
}

function secretKeyOf(env: NodeJS.ProcessEnv): Buffer | null {
  const raw = consoleSecret(env, "CONSOLE_SECRET_KEY");
  if (raw === undefined || raw.trim() === "") return null;
  return parseSecretKey(raw, "CONSOLE_SECRET_KEY");
}

function adminPasswordOf(env: NodeJS.ProcessEnv): string | null {
  const raw = consoleSecret(env, "CONSOLE_ADMIN_PASSWORD");
  if (raw === undefined || raw === "") return null;
  if (raw.length < MIN_PASSWORD_LENGTH) throw new ConfigError(`CONSOLE_ADMIN_PASSWORD must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return raw;
}

/** Default interpreter allow-list of native skill scripts (seed 004 task 6.2: bash, python3, sh). */
export const DEFAULT_SCRIPT_INTERPRETERS: readonly string[] = ["bash", "sh", "python3"];

/** A fixed system PATH: the only PATH a native skill's script gets, and where interpreters are looked up. */
export const SCRIPT_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

function scriptInterpretersOf(env: NodeJS.ProcessEnv): string[] {
  const raw = env.SKILL_SCRIPT_INTERPRETERS;
  if (raw === undefined || raw.trim() === "") return [...DEFAULT_SCRIPT_INTERPRETERS];
  const names = raw.split(",").map((piece) => piece.trim()).filter((piece) => piece !== "");
  for (const name of names) {
    if (!/^[A-Za-z0-9._+-]+$/.test(name)) throw new ConfigError(`SKILL_SCRIPT_INTERPRETERS: ${JSON.stringify(name)} must be a bare command name such as python3 (looked up on ${SCRIPT_SYSTEM_PATH})`);
  }
  return names;
}

/** Splits ONGRID_SKILLS_EXTERNAL_DIRS on `:` and `,` (seed 000), dropping empty pieces. */
export function splitRoots(raw: string): string[] {
  return raw
    .split(/[:,]/)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== "");
}

/**
 * Parses settings from an environment object (default: process.env).
 * Returns a ConsoleConfig; throws ConfigError naming the variable when a value is unusable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ConsoleConfig {
  const skillsPath = path.resolve(env.SKILLS_PATH && env.SKILLS_PATH.trim() !== "" ? env.SKILLS_PATH : "./skills");
  const rawRoots = env.ONGRID_SKILLS_EXTERNAL_DIRS;
  const externalRootsConfigured = rawRoots !== undefined && rawRoots.trim() !== "";
  const leaseMs = positiveInt(env, "CALL_LEASE_MS", 15_000);
  if (leaseMs < 300) throw new ConfigError(`CALL_LEASE_MS=${leaseMs} must be at least 300`);
  const skillRoots = externalRootsConfigured ? splitRoots(rawRoots) : [skillsPath];
  const dataDir = path.resolve("./data");
  const packsPath = packsPathOf(env);
  refusePacksOverlap(packsPath, skillRoots, skillsPath);
  // Handed over a pipe by `npm start` like the other secrets: a postgresql:// URL holds a password.
  const databaseUrl = resolveDatabaseUrl(consoleSecret(env, "DATABASE_URL"));
  return {
    skillRoots,
    externalRootsConfigured,
    skillsPath,
    packsPath,
    packTrustedKeys: packTrustedKeysOf(env),
    packsAllowUnsigned: packsAllowUnsignedOf(env),
    packMaxBytes: positiveInt(env, "PACK_MAX_BYTES", 64 * 1024 * 1024),
    databaseUrl,
    databasePoolSize: positiveInt(env, "DATABASE_POOL_SIZE", 10, 1000),
    host: env.HOST && env.HOST.trim() !== "" ? env.HOST.trim() : "127.0.0.1",
    port: positiveInt(env, "PORT", 3000, 65535),
    ...processLimitsOf(env),
    argsLimitBytes: positiveInt(env, "SKILL_ARGS_LIMIT_BYTES", 8 * 1024 * 1024),
    argsMaxNodes: positiveInt(env, "SKILL_ARGS_MAX_NODES", 100_000),
    maxConcurrentCalls: positiveInt(env, "SKILL_MAX_CONCURRENT_CALLS", 8),
    leaseMs,
    eventFlushMs: positiveInt(env, "CALL_EVENT_FLUSH_MS", 250, 1000),
    dataDir,
    authSecret: authSecretOf(env),
    secretKey: secretKeyOf(env),
    adminEmail: env.CONSOLE_ADMIN_EMAIL && env.CONSOLE_ADMIN_EMAIL.trim() !== "" ? env.CONSOLE_ADMIN_EMAIL.trim().toLowerCase() : "admin@console.local",
    adminPassword: adminPasswordOf(env),
    sessionTtlSeconds: positiveInt(env, "CONSOLE_SESSION_TTL_SECONDS", 12 * 3600),
    secureCookies: booleanSetting(env, "CONSOLE_SECURE_COOKIES", false),
    loginMaxFailures: positiveInt(env, "LOGIN_MAX_FAILURES", 5),
    loginWindowSeconds: positiveInt(env, "LOGIN_WINDOW_SECONDS", 900),
    approvalTtlSeconds: positiveInt(env, "APPROVAL_TTL_SECONDS", 3600),
    publicUrl: publicUrlOf(env),
    webhookTimeoutMs: positiveInt(env, "WEBHOOK_TIMEOUT_MS", 10_000, 120_000),
    webhookRetryFirstMs: positiveInt(env, "WEBHOOK_RETRY_FIRST_MS", 10_000, 30_000),
    scriptInterpreters: scriptInterpretersOf(env),
    resourceLimitBytes: positiveInt(env, "SKILL_RESOURCE_LIMIT_BYTES", 1024 * 1024),
    localWorker: booleanSetting(env, "CONSOLE_LOCAL_WORKER", true),
    watchSkills: booleanSetting(env, "SKILLS_WATCH", true),
    sandboxAllowPaths: sandboxSettingsOf(env).allowPaths,
    bundledSkillsDir: path.resolve("./skills"),
    sandboxHiddenPaths: sandboxHiddenPaths({ installDir: process.cwd(), dataDir, skillRoots: [...skillRoots, packsPath], skillsPath, databaseFile: sqliteFileOf(databaseUrl), extra: hidePathsOf(env) }),
    skillFolderLimits: skillFolderLimitsOf(env),
  };
}

function publicUrlOf(env: NodeJS.ProcessEnv): string | null {
  const raw = (env.CONSOLE_PUBLIC_URL ?? "").trim().replace(/\/+$/, "");
  if (raw === "") return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`CONSOLE_PUBLIC_URL=${JSON.stringify(env.CONSOLE_PUBLIC_URL)} must be an http(s) URL, e.g. https://console.example.com`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new ConfigError(`CONSOLE_PUBLIC_URL=${JSON.stringify(env.CONSOLE_PUBLIC_URL)} must be an http(s) URL without credentials, query or fragment`);
  }
  return raw;
}

function packsPathOf(env: NodeJS.ProcessEnv): string {
  return path.resolve(env.PACKS_PATH && env.PACKS_PATH.trim() !== "" ? env.PACKS_PATH : "./data/packs");
}

/**
 * Refuses a PACKS_PATH that is, lies in or holds an allow-list root or SKILLS_PATH (compared as written
 * and, for what exists, by real path): the loaders would walk staged versions and the work folder as
 * skills of that root — a pack nobody enabled would be callable — and a root's skills would sit among
 * the installed packs. Throws ConfigError naming both.
 */
function refusePacksOverlap(packsPath: string, skillRoots: readonly string[], skillsPath: string): void {
  const forms = (given: string) => {
    const resolved = path.resolve(given);
    try {
      return [resolved, fs.realpathSync.native(resolved)];
    } catch {
      return [resolved];
    }
  };
  for (const other of [...skillRoots.filter((root) => path.isAbsolute(root)), skillsPath]) {
    for (const a of forms(packsPath)) {
      for (const b of forms(other)) {
        if (pathsOverlap(a, b)) {
          throw new ConfigError(`PACKS_PATH=${packsPath} overlaps ${other} (an allow-list root or SKILLS_PATH): staged packs would load as that root's skills; keep them apart`);
        }
      }
    }
  }
}

function packsAllowUnsignedOf(env: NodeJS.ProcessEnv): ConsoleConfig["packsAllowUnsigned"] {
  const raw = (env.PACKS_ALLOW_UNSIGNED ?? "").trim().toLowerCase() || "local";
  if (raw !== "local" && raw !== "always" && raw !== "never") throw new ConfigError(`PACKS_ALLOW_UNSIGNED=${JSON.stringify(env.PACKS_ALLOW_UNSIGNED)} must be local, always or never`);
  return raw;
}

function packTrustedKeysOf(env: NodeJS.ProcessEnv): PackTrustedKey[] {
  try {
    return parseTrustedKeys(env.CONSOLE_PACK_TRUSTED_KEYS ?? "");
  } catch (error) {
    throw new ConfigError(`CONSOLE_PACK_TRUSTED_KEYS: ${(error as Error).message}`);
  }
}

/** The SQLite file of a `file:` URL (its folder is hidden from every sandbox), or null for another database. */
function sqliteFileOf(url: string): string | null {
  return url.startsWith("file:") ? sqlitePathOf(url) : null;
}

/**
 * The settings of how a call's process is run and bounded, which the console and its workers read the
 * same way (one place for the defaults: SKILL_DEFAULT_TIMEOUT_SECONDS 30, SKILL_KILL_GRACE_MS 2000,
 * SKILL_EXIT_DRAIN_MS 300, SKILL_STDOUT_LIMIT_BYTES 4 MiB, SKILL_STDERR_LIMIT_BYTES 8 MiB,
 * SKILL_STDERR_LINE_LIMIT 250,000). Throws ConfigError naming a bad variable.
 */
function processLimitsOf(env: NodeJS.ProcessEnv): Pick<ConsoleConfig, "defaultTimeoutSeconds" | "killGraceMs" | "exitDrainMs" | "stdoutLimitBytes" | "stderrLimitBytes" | "stderrLineLimit"> {
  return {
    defaultTimeoutSeconds: positiveInt(env, "SKILL_DEFAULT_TIMEOUT_SECONDS", 30),
    killGraceMs: positiveInt(env, "SKILL_KILL_GRACE_MS", 2000),
    exitDrainMs: positiveInt(env, "SKILL_EXIT_DRAIN_MS", 300),
    stdoutLimitBytes: positiveInt(env, "SKILL_STDOUT_LIMIT_BYTES", 4 * 1024 * 1024),
    stderrLimitBytes: positiveInt(env, "SKILL_STDERR_LIMIT_BYTES", 8 * 1024 * 1024),
    stderrLineLimit: positiveInt(env, "SKILL_STDERR_LINE_LIMIT", 250_000),
  };
}

function skillFolderLimitsOf(env: NodeJS.ProcessEnv): SkillFolderLimits {
  return {
    ...DEFAULT_SKILL_FOLDER_LIMITS,
    maxEntries: positiveInt(env, "SKILL_FOLDER_MAX_FILES", DEFAULT_SKILL_FOLDER_LIMITS.maxEntries),
    maxBytes: positiveInt(env, "SKILL_FOLDER_MAX_BYTES", DEFAULT_SKILL_FOLDER_LIMITS.maxBytes),
  };
}

/** SKILL_SANDBOX_HIDE_PATHS as absolute, normalised paths (none when unset); throws ConfigError naming the variable. */
function hidePathsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    return parseSandboxAllowPaths(env.SKILL_SANDBOX_HIDE_PATHS, "SKILL_SANDBOX_HIDE_PATHS");
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** Parses the sandbox settings (SKILL_SANDBOX*, SKILL_*_LIMIT*); throws ConfigError naming the variable. */
export function sandboxSettingsOf(env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const rawMode = (env.SKILL_SANDBOX ?? "").trim().toLowerCase() || "auto";
  if (rawMode !== "auto" && rawMode !== "bwrap" && rawMode !== "none") throw new ConfigError(`SKILL_SANDBOX=${JSON.stringify(env.SKILL_SANDBOX)} must be auto, bwrap or none`);
  let allowPaths: string[] | null;
  try {
    allowPaths = env.SKILL_SANDBOX_ALLOW_PATHS === undefined ? null : parseSandboxAllowPaths(env.SKILL_SANDBOX_ALLOW_PATHS);
  } catch (error) {
    throw new ConfigError(`SKILL_SANDBOX_ALLOW_PATHS: ${(error as Error).message}`);
  }
  const rawUid = env.SKILL_SANDBOX_UID?.trim();
  const uid = rawUid === undefined || rawUid === "" ? 65534 : Number(rawUid);
  if (!Number.isInteger(uid) || uid < 0 || uid > 4294967294) throw new ConfigError(`SKILL_SANDBOX_UID=${JSON.stringify(rawUid)} must be a uid`);
  const rawCpu = env.SKILL_CPU_LIMIT?.trim();
  const cpu = rawCpu === undefined || rawCpu === "" ? null : Number(rawCpu);
  if (cpu !== null && !(Number.isFinite(cpu) && cpu > 0 && cpu <= 1024)) throw new ConfigError(`SKILL_CPU_LIMIT=${JSON.stringify(rawCpu)} must be a number of cores above 0`);
  return {
    mode: rawMode,
    uid,
    allowPaths,
    memoryLimitMb: positiveInt(env, "SKILL_MEMORY_LIMIT_MB", 1024, 1024 * 1024),
    pidsLimit: positiveInt(env, "SKILL_PIDS_LIMIT", 256, 4_194_304),
    cpuLimit: cpu,
  };
}

function labelsOf(raw: string | undefined): string[] {
  const labels = (raw ?? "").split(",").map((label) => label.trim()).filter((label) => label !== "");
  for (const label of labels) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/.test(label)) throw new ConfigError(`WORKER_LABELS: ${JSON.stringify(label)} must be 1–64 letters, digits, '.', '_', ':' or '-'`);
  }
  return [...new Set(labels)];
}

/**
 * Parses a worker's settings from an environment object (default: process.env). Reads no database
 * setting and creates nothing (a worker on another host has no ./data of the console's). `consoleUrl`
 * may be given by the process that starts the worker (the console's own local worker). Throws
 * ConfigError naming the variable.
 */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env, given: { consoleUrl?: string } = {}): WorkerConfig {
  const consoleUrl = (given.consoleUrl ?? env.CONSOLE_URL ?? "").trim().replace(/\/+$/, "");
  if (consoleUrl === "") throw new ConfigError("CONSOLE_URL must name the console, e.g. http://127.0.0.1:3000");
  if (!/^https?:\/\/[^/]+$/.test(consoleUrl)) throw new ConfigError(`CONSOLE_URL=${JSON.stringify(consoleUrl)} must be an http(s) URL without a path`);
  const skillsPath = path.resolve(env.SKILLS_PATH && env.SKILLS_PATH.trim() !== "" ? env.SKILLS_PATH : "./skills");
  const rawRoots = env.ONGRID_SKILLS_EXTERNAL_DIRS;
  const skillRoots = rawRoots !== undefined && rawRoots.trim() !== "" ? splitRoots(rawRoots) : [skillsPath];
  const packsPath = packsPathOf(env);
  refusePacksOverlap(packsPath, skillRoots, skillsPath);
  const stateDir = path.resolve(env.WORKER_STATE_DIR && env.WORKER_STATE_DIR.trim() !== "" ? env.WORKER_STATE_DIR : "./data/worker");
  const name = (env.WORKER_NAME ?? "").trim() || os.hostname();
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(name)) throw new ConfigError(`WORKER_NAME=${JSON.stringify(name)} must be 1–100 letters, digits, '.', '_', ':' or '-'`);
  const concurrencyFallback = positiveInt(env, "SKILL_MAX_CONCURRENT_CALLS", 8, 1024);
  return {
    consoleUrl,
    name,
    labels: labelsOf(env.WORKER_LABELS),
    concurrency: positiveInt(env, "WORKER_CONCURRENCY", concurrencyFallback, 1024),
    stateDir,
    skillRoots,
    skillsPath,
    packsPath,
    watchSkills: booleanSetting(env, "SKILLS_WATCH", true),
    ...processLimitsOf(env),
    scriptInterpreters: scriptInterpretersOf(env),
    skillFolderLimits: skillFolderLimitsOf(env),
    sandbox: sandboxSettingsOf(env),
    sandboxHiddenPaths: sandboxHiddenPaths({ installDir: process.cwd(), dataDir: path.resolve("./data"), skillRoots: [...skillRoots, packsPath], skillsPath, extra: hidePathsOf(env) }).concat(stateDir).sort(),
    bundledSkillsDir: path.resolve("./skills"),
  };
}

let cached: ConsoleConfig | undefined;

/** The process-wide settings, parsed once on first use. Throws ConfigError like loadConfig. */
export function config(): ConsoleConfig {
  cached ??= loadConfig();
  return cached;
}

/** Forgets the parsed settings so the next config() re-reads the environment (tests only). */
export function resetConfigForTests(): void {
  cached = undefined;
}

/**
 * The console's own secrets: never forwarded to a child, whatever a manifest's `env_allow` lists
 * (DESIGN.md: a skill gets the names it allows, never the console's secrets). DATABASE_URL is one: a
 * PostgreSQL URL carries the database password.
 */
export const CONSOLE_SECRET_NAMES: ReadonlySet<string> = new Set(["CONSOLE_AUTH_SECRET", "CONSOLE_ADMIN_PASSWORD", "CONSOLE_SECRET_KEY", "BETTER_AUTH_SECRET", "AUTH_SECRET", "DATABASE_URL", "WORKER_TOKEN"]);

/**
 * The value of one variable of the console's own environment, for the executor's `env_allow`
 * forwarding (seed 000: only the listed names reach the child). Returns undefined when unset. Only
 * real variables count: `process.env.constructor` or `.toString` are Object.prototype members, and
 * forwarding them would hand the child `constructor=function Object() …`.
 */
export function consoleEnvValue(name: string): string | undefined {
  if (CONSOLE_SECRET_NAMES.has(name)) return undefined;
  if (!Object.prototype.hasOwnProperty.call(process.env, name)) return undefined;
  const value = process.env[name];
  return typeof value === "string" ? value : undefined;
}
