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
 */
export const HANDED_SECRET_NAMES = ["CONSOLE_AUTH_SECRET", "CONSOLE_ADMIN_PASSWORD"];

/**
 * Splits an environment into the server's environment (without HANDED_SECRET_NAMES nor WORKER_TOKEN)
 * and the secrets to hand over. Returns `{ env, secrets }`; the input is not changed.
 */
export function withoutSecrets(env) {
  const rest = { ...env };
  const secrets = {};
  for (const name of HANDED_SECRET_NAMES) {
    if (typeof rest[name] === "string" && rest[name] !== "") secrets[name] = rest[name];
    delete rest[name];
  }
  delete rest.WORKER_TOKEN;
  return { env: rest, secrets };
}

/**
 * The environment of a worker started on this host (the console's local worker, `npm run worker`):
 * the given one without the console's secrets — the database URL, the auth secret, the admin's
 * password, the worker token itself (DESIGN.md: a worker holds no database credentials; its token
 * arrives over a pipe). Returns a new object.
 */
export function workerEnvironment(env) {
  const { env: rest } = withoutSecrets(serverEnvironment(env));
  for (const name of ["DATABASE_URL", "BETTER_AUTH_SECRET", "AUTH_SECRET"]) delete rest[name];
  return rest;
}
