import path from "node:path";
import { resolveDatabaseUrl } from "./database-url";

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
  databaseUrl: string;
  host: string;
  port: number;
  defaultTimeoutSeconds: number;
  killGraceMs: number;
  exitDrainMs: number;
  stdoutLimitBytes: number;
  stderrLimitBytes: number;
  stderrLineLimit: number;
  argsLimitBytes: number;
  maxConcurrentCalls: number;
  leaseMs: number;
  eventFlushMs: number;
  /** Absolute path of the folder for the console's own files (generated auth secret): ./data. */
  dataDir: string;
  /** Secret that signs session cookies (CONSOLE_AUTH_SECRET); null = generate one under dataDir. */
  authSecret: string | null;
  /** The first admin's email and password, used only while no user exists. */
  adminEmail: string;
  adminPassword: string | null;
  sessionTtlSeconds: number;
  secureCookies: boolean;
  /** Failed sign-ins allowed per account and address within loginWindowSeconds (ten times that per address). */
  loginMaxFailures: number;
  loginWindowSeconds: number;
  approvalTtlSeconds: number;
  /** Interpreters a native skill's script may run under (SKILL_SCRIPT_INTERPRETERS; seed 004 task 6.1 allow-list). */
  scriptInterpreters: string[];
  /** Largest resource file served whole by level 3 (`GET …/resources/{path}`, skill_read_resource), in bytes. */
  resourceLimitBytes: number;
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
  { name: "DATABASE_URL", default: "file:./data/console.db", meaning: "Database. Only SQLite `file:` URLs in this release; PostgreSQL comes later." },
  { name: "HOST", default: "127.0.0.1", meaning: "Address the console listens on. Put it behind TLS (a reverse proxy) before listening beyond loopback." },
  { name: "PORT", default: "3000", meaning: "TCP port of the console." },
  { name: "SKILL_DEFAULT_TIMEOUT_SECONDS", default: "30", meaning: "Timeout of a skill whose manifest says 0 or nothing." },
  { name: "SKILL_KILL_GRACE_MS", default: "2000", meaning: "Time between TERM and KILL when a process group is stopped." },
  { name: "SKILL_EXIT_DRAIN_MS", default: "300", meaning: "After the direct child exits, how long its leftover group may keep writing before it is stopped." },
  { name: "SKILL_STDOUT_LIMIT_BYTES", default: "4194304", meaning: "Largest stdout (the result) a call may write; past it the call fails." },
  { name: "SKILL_STDERR_LIMIT_BYTES", default: "8388608", meaning: "Largest stderr timeline kept per call; past it the timeline ends with a truncation marker." },
  { name: "SKILL_STDERR_LINE_LIMIT", default: "250000", meaning: "Most stderr lines kept per call (a flood of empty lines is bounded by this, not by bytes); past it the timeline ends with a truncation marker." },
  { name: "SKILL_ARGS_LIMIT_BYTES", default: "8388608", meaning: "Largest args document accepted; larger requests answer 413." },
  { name: "SKILL_MAX_CONCURRENT_CALLS", default: "8", meaning: "Calls running at once; more wait as `queued`." },
  { name: "CALL_LEASE_MS", default: "15000", meaning: "Lease a console holds on its running calls; renewed every third of it. A call whose owner's lease lapsed is marked `interrupted`." },
  { name: "CALL_EVENT_FLUSH_MS", default: "250", meaning: "How often buffered timeline lines are written to the database (at most 1000)." },
  { name: "CONSOLE_AUTH_SECRET", default: "(generated into ./data/auth-secret)", meaning: "Secret that signs session cookies, at least 32 characters. Unset: one is generated on first start and kept in ./data/auth-secret (mode 0600)." },
  { name: "CONSOLE_ADMIN_EMAIL", default: "admin@console.local", meaning: "Email of the admin created on first start, when the database has no user." },
  { name: "CONSOLE_ADMIN_PASSWORD", default: "(random, printed once)", meaning: "Password of that first admin (at least 12 characters). Unset: a random one is printed once to the console output." },
  { name: "CONSOLE_SESSION_TTL_SECONDS", default: "43200", meaning: "How long a sign-in lasts." },
  { name: "CONSOLE_SECURE_COOKIES", default: "false", meaning: "`true` marks the session cookie Secure: set it when the console is served over HTTPS." },
  { name: "LOGIN_MAX_FAILURES", default: "5", meaning: "Failed sign-ins allowed per account and address within LOGIN_WINDOW_SECONDS (ten times as many per address); then 429 with Retry-After." },
  { name: "LOGIN_WINDOW_SECONDS", default: "900", meaning: "Window over which failed sign-ins are counted." },
  { name: "SKILL_SCRIPT_INTERPRETERS", default: "bash,sh,python3", meaning: "Interpreters a native skill's script may run under (chosen by its extension or shebang), separated by `,`. A script needing another one is refused." },
  { name: "SKILL_RESOURCE_LIMIT_BYTES", default: "1048576", meaning: "Largest native skill resource file served by level 3 (resources API, skill_read_resource); larger files are described, not sent." },
  { name: "APPROVAL_TTL_SECONDS", default: "3600", meaning: "How long a dangerous call waits for its two signatures (and a mutating call for its confirmation) before it expires." },
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

function authSecretOf(env: NodeJS.ProcessEnv): string | null {
  const raw = env.CONSOLE_AUTH_SECRET;
  if (raw === undefined || raw.trim() === "") return null;
  if (raw.trim().length < MIN_AUTH_SECRET_LENGTH) {
    throw new ConfigError(`CONSOLE_AUTH_SECRET must be at least ${MIN_AUTH_SECRET_LENGTH} characters`);
  }
  return raw.trim();
}

function adminPasswordOf(env: NodeJS.ProcessEnv): string | null {
  const raw = env.CONSOLE_ADMIN_PASSWORD;
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
  return {
    skillRoots: externalRootsConfigured ? splitRoots(rawRoots) : [skillsPath],
    externalRootsConfigured,
    skillsPath,
    databaseUrl: resolveDatabaseUrl(env.DATABASE_URL),
    host: env.HOST && env.HOST.trim() !== "" ? env.HOST.trim() : "127.0.0.1",
    port: positiveInt(env, "PORT", 3000, 65535),
    defaultTimeoutSeconds: positiveInt(env, "SKILL_DEFAULT_TIMEOUT_SECONDS", 30),
    killGraceMs: positiveInt(env, "SKILL_KILL_GRACE_MS", 2000),
    exitDrainMs: positiveInt(env, "SKILL_EXIT_DRAIN_MS", 300),
    stdoutLimitBytes: positiveInt(env, "SKILL_STDOUT_LIMIT_BYTES", 4 * 1024 * 1024),
    stderrLimitBytes: positiveInt(env, "SKILL_STDERR_LIMIT_BYTES", 8 * 1024 * 1024),
    stderrLineLimit: positiveInt(env, "SKILL_STDERR_LINE_LIMIT", 250_000),
    argsLimitBytes: positiveInt(env, "SKILL_ARGS_LIMIT_BYTES", 8 * 1024 * 1024),
    maxConcurrentCalls: positiveInt(env, "SKILL_MAX_CONCURRENT_CALLS", 8),
    leaseMs,
    eventFlushMs: positiveInt(env, "CALL_EVENT_FLUSH_MS", 250, 1000),
    dataDir: path.resolve("./data"),
    authSecret: authSecretOf(env),
    adminEmail: env.CONSOLE_ADMIN_EMAIL && env.CONSOLE_ADMIN_EMAIL.trim() !== "" ? env.CONSOLE_ADMIN_EMAIL.trim().toLowerCase() : "admin@console.local",
    adminPassword: adminPasswordOf(env),
    sessionTtlSeconds: positiveInt(env, "CONSOLE_SESSION_TTL_SECONDS", 12 * 3600),
    secureCookies: booleanSetting(env, "CONSOLE_SECURE_COOKIES", false),
    loginMaxFailures: positiveInt(env, "LOGIN_MAX_FAILURES", 5),
    loginWindowSeconds: positiveInt(env, "LOGIN_WINDOW_SECONDS", 900),
    approvalTtlSeconds: positiveInt(env, "APPROVAL_TTL_SECONDS", 3600),
    scriptInterpreters: scriptInterpretersOf(env),
    resourceLimitBytes: positiveInt(env, "SKILL_RESOURCE_LIMIT_BYTES", 1024 * 1024),
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
export const CONSOLE_SECRET_NAMES: ReadonlySet<string> = new Set(["CONSOLE_AUTH_SECRET", "CONSOLE_ADMIN_PASSWORD", "BETTER_AUTH_SECRET", "AUTH_SECRET", "DATABASE_URL"]);

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
