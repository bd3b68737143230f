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
