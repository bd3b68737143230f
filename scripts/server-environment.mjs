import fs from "node:fs";
import path from "node:path";

/** PATH entries that `npm start` / `npm run` add in front of the operator's own PATH. */
const NPM_ADDED_DIR = /[\\/](node_modules[\\/]\.bin|node-gyp-bin)$/;

/**
 * The environment the console server runs with: the one it was started with, minus what npm added.
 * npm prepends node_modules/.bin folders and its node-gyp-bin to PATH; a skill with "PATH" in its
 * env_allow must get the operator's PATH, not the console's own tools (next, prisma, tsc…) first.
 * Takes an environment object and returns a new one; the input is not changed.
 */
export function serverEnvironment(env) {
  const result = { ...env };
  if (typeof result.PATH === "string") {
    result.PATH = result.PATH.split(path.delimiter)
      .filter((dir) => !NPM_ADDED_DIR.test(dir))
      .join(path.delimiter);
  }
  return result;
}

/**
 * Console secrets that `npm start` moves out of the environment before starting the long-lived server
 * (issue 9 point 2: no console secret travels in a long-lived environment, where a process of the
 * same user could read it from /proc/<pid>/environ). The server gets them over a pipe (fd 3) instead.
 * DATABASE_URL is one: a postgresql:// URL carries the database password.
 */
export const HANDED_SECRET_NAMES = ["CONSOLE_AUTH_SECRET", "CONSOLE_ADMIN_PASSWORD", "CONSOLE_SECRET_KEY", "DATABASE_URL"];

/** Whether a handed value is secret enough to warn about in an environment: a DATABASE_URL only when it holds a password (`scheme://user:password@…`). */
function isSecretValue(name, value) {
  return name !== "DATABASE_URL" || /^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:[^/@]+@/i.test(value);
}

/**
 * Splits an environment into the server's environment (without HANDED_SECRET_NAMES, their `_FILE`
 * forms, nor WORKER_TOKEN / WORKER_TOKEN_FILE) and the secrets to hand over: each from `<NAME>` or,
 * when that is unset, read from the file `<NAME>_FILE` names (trimmed; the way to keep a secret out of
 * every environment, npm's and this launcher's included); each `_FILE` read (WORKER_TOKEN_FILE's too, which
 * the worker's launcher reads itself) is added to the env's SKILL_SANDBOX_HIDE_PATHS, so no skill's
 * sandbox can read it. Returns `{ env, secrets, inEnvironment }`,
 * `inEnvironment` naming the secrets that were given in the environment itself (a DATABASE_URL only
 * when it holds a password). Throws when a
 * `_FILE` cannot be read. The input is not changed.
 */
export function withoutSecrets(env) {
  const rest = { ...env };
  const secrets = {};
  const inEnvironment = [];
  const files = [];
  for (const name of [...HANDED_SECRET_NAMES, "WORKER_TOKEN"]) {
    if (name !== "WORKER_TOKEN") {
      const value = secretFrom(rest, name);
      if (value !== null) secrets[name] = value;
      if (typeof rest[name] === "string" && rest[name] !== "" && isSecretValue(name, rest[name])) inEnvironment.push(name);
    }
    const file = rest[`${name}_FILE`];
    if (typeof file === "string" && file !== "") files.push(secretFileToHide(name, file));
    delete rest[name];
    delete rest[`${name}_FILE`];
  }
  if (files.length > 0) rest.SKILL_SANDBOX_HIDE_PATHS = [rest.SKILL_SANDBOX_HIDE_PATHS, ...files].filter((entry) => entry).join(":");
  return { env: rest, secrets, inEnvironment };
}

/**
 * The file `<name>_FILE` names, absolute, to add to SKILL_SANDBOX_HIDE_PATHS: every sandbox then shows
 * it empty (a key file under /etc would otherwise be readable by any skill of the same user). Throws
 * when its path cannot be written in that `:`/`,`-separated list (deny when in doubt).
 */
function secretFileToHide(name, file) {
  const absolute = path.resolve(file);
  if (/[:,]/.test(absolute)) throw new Error(`${name}_FILE=${file}: a path with ':' or ',' cannot be hidden from skills' sandboxes (SKILL_SANDBOX_HIDE_PATHS); move the file`);
  return absolute;
}

/**
 * A secret from `env[name]`, or from the file `env[name + "_FILE"]` names when the former is unset;
 * null when neither is set. Throws Error naming the variable when the file cannot be read or is empty.
 */
export function secretFrom(env, name) {
  if (typeof env[name] === "string" && env[name] !== "") return env[name];
  const file = env[`${name}_FILE`];
  if (typeof file !== "string" || file === "") return null;
  let value;
  try {
    value = fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new Error(`${name}_FILE=${file} cannot be read: ${error.code ?? error.message}`);
  }
  if (value === "") throw new Error(`${name}_FILE=${file} is empty`);
  return value;
}

/**
 * The warning a launcher prints when secrets were given in its own environment: that environment
 * (and npm's, when started by npm) holds them for the whole run, readable in /proc/<pid>/environ by
 * the same user and root; the `_FILE` forms keep them out. Returns null when `names` is empty.
 */
export function secretsInEnvironmentWarning(names) {
  if (names.length === 0) return null;
  return `warning: ${names.join(", ")} ${names.length === 1 ? "is" : "are"} in the environment of this launcher (and of npm) for as long as it runs, readable in /proc/<pid>/environ by the same user and root; the server and workers never get ${names.length === 1 ? "it" : "them"} there. ${names.map((name) => `${name}_FILE`).join(" / ")} (a file of mode 0600) keeps ${names.length === 1 ? "it" : "them"} out of every environment`;
}

/**
 * The environment of a worker started on this host (the console's local worker, `npm run worker`):
 * the given one without the console's secrets — the database URL, the auth secret, the admin's
 * password, the worker token itself (DESIGN.md: a worker holds no database credentials; its token
 * arrives over a pipe). Returns a new object.
 */
export function workerEnvironment(env) {
  const { env: rest } = withoutSecrets(serverEnvironment(env));
  for (const name of ["DATABASE_URL", "BETTER_AUTH_SECRET", "AUTH_SECRET", "DATABASE_URL_FILE"]) delete rest[name];
  return rest;
}
