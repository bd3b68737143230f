import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * Tests that do not touch the console's database, or test SQLite itself: they run once, in the
 * `sqlite` project. Everything else runs in both projects (issue 11 point 1: the whole suite on both
 * engines), the `postgresql` one against a real PostgreSQL cluster tests/global-setup.ts starts.
 */
const ONCE_ONLY = [
  "lib/**/*.test.ts",
  "components/**/*.test.ts",
  "tests/loader/**",
  "tests/search/**",
  "tests/executor/**",
  "tests/sandbox/**",
  "tests/scripts/console-lock.test.ts",
  "tests/scripts/parent-watch.test.ts",
  "tests/scripts/peer-address.test.ts",
  "tests/scripts/prisma-client-staleness.test.ts",
  "tests/scripts/server-environment.test.ts",
  "tests/native/bundled-native-skills.test.ts",
  "tests/attack/validation-pipeline-storm.test.ts",
  "tests/native/loader-frontmatter.test.ts",
  "tests/api/api-router.test.ts",
  "tests/attack/disk-cleaner-race.test.ts",
  "tests/attack/manifest-swap.test.ts",
  "tests/attack/recovery-identity.test.ts",
  "tests/attack/review5-search.test.ts",
  "tests/attack/stderr-flood.test.ts",
  "tests/attack/event-stream-backlog.test.ts",
  "tests/attack/resource-races.test.ts",
  "tests/attack/hidden-files.test.ts",
  "tests/attack/containment-attacks.test.ts",
  "tests/attack/secret-masking-attacks.test.ts",
  "tests/attack/secret-theft.test.ts",
  // SQLite's own machinery (its lock, checkpoints, group commit, one console per file) and the migrations' tests.
  "tests/attack/busy-database.test.ts",
  "tests/db/checkpoints.test.ts",
  "tests/db/group-commit.test.ts",
  "tests/db/transaction-isolation.test.ts",
  "tests/db/migrations.test.ts",
  "tests/db/postgres-migrations.test.ts",
];

/**
 * Unit and integration tests (vitest), in two projects: `sqlite` (every test) and `postgresql` (every
 * test that uses the database, on PostgreSQL). Tests run real child processes, real SQLite files and
 * a real PostgreSQL cluster, so they run in forked workers with a modest parallelism that suits a
 * 2-core machine. `vitest run --project sqlite` runs one engine.
 */
export default defineConfig({
  resolve: {
    alias: {
      "@": root,
      // Marks server modules for Next.js's bundler (which turns it into nothing on the server and an
      // error in a client bundle); tests run server code as plain Node, where it is nothing too.
      "server-only": path.join(root, "node_modules/server-only/empty.js"),
    },
  },
  test: {
    environment: "node",
    pool: "forks",
    maxWorkers: 2,
    // Loader and executor log lines are shown only for the tests that fail.
    silent: "passed-only",
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ["tests/global-setup.ts"],
    projects: [
      { extends: true, test: { name: "sqlite", include: ["lib/**/*.test.ts", "components/**/*.test.ts", "tests/**/*.test.ts"] } },
      { extends: true, test: { name: "postgresql", include: ["tests/**/*.test.ts"], exclude: ["**/node_modules/**", ...ONCE_ONLY] } },
    ],
  },
});
