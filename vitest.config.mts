import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * Unit and integration tests (vitest). Tests run real child processes and real SQLite files, so they
 * run in forked workers with a modest parallelism that suits a 2-core machine.
 */
export default defineConfig({
  resolve: {
    alias: {
      "@": path.dirname(fileURLToPath(import.meta.url)),
      // Marks server modules for Next.js's bundler (which turns it into nothing on the server and an
      // error in a client bundle); tests run server code as plain Node, where it is nothing too.
      "server-only": path.join(path.dirname(fileURLToPath(import.meta.url)), "node_modules/server-only/empty.js"),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "components/**/*.test.ts", "tests/**/*.test.ts"],
    environment: "node",
    pool: "forks",
    maxWorkers: 2,
    // Loader and executor log lines are shown only for the tests that fail.
    silent: "passed-only",
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ["tests/global-setup.ts"],
  },
});
