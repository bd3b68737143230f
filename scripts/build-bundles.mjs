/**
 * Builds the two programs the console runs besides Next.js, with esbuild: one ESM file each for Node 20,
 * the project's `@/` imports bundled in, npm packages left as imports of node_modules.
 * - `buildWorker()`: the worker (lib/worker/main.ts) into `.worker/worker.mjs`. Refuses a bundle that
 *   would pull in the web server or the database (DESIGN.md: a worker has no Next.js and no database
 *   credentials): any import of next, react, @prisma/*, better-sqlite3 or better-auth, or of
 *   lib/server/db.ts, fails the build.
 * - `buildConsoleApi()`: the console's API router (lib/server/http/api-router.ts over every
 *   app/api/**\/route.ts) into `.console/api.mjs`, which scripts/console-server.mjs serves the API with
 *   in production instead of Next.js's request pipeline (the same route handlers, ~4 ms of CPU less per
 *   request).
 * Each returns `{ file, fresh }`; a build is skipped when its output is newer than every source. Run as
 * a script (`--force` rebuilds) it builds both and prints them.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FORBIDDEN_PACKAGES = [/^next(\/|$)/, /^react(-dom)?(\/|$)/, /^@prisma\//, /^better-sqlite3$/, /^better-auth(\/|$)/];
const FORBIDDEN_FILES = ["lib/server/db.ts"];
const SOURCE_DIRS = ["lib", "package.json", "package-lock.json"];
const API_SOURCE_DIRS = ["lib", "app/api", "package.json", "package-lock.json"];

/** The newest modification time (ms) of `entry` and, for a folder, of everything below it; 0 when it does not exist. */
export function newestMtime(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

/**
 * esbuild plugin: a deep import of a CommonJS package written without its extension (`ajv/dist/2019`)
 * resolves under `require` but not under Node's ESM loader, which the bundle runs in; such imports are
 * kept external with the file's extension added (`ajv/dist/2019.js`).
 */
export const deepImportExtensions = {
  name: "deep-import-extensions",
  setup(build) {
    const requireFromRoot = createRequire(path.join(root, "package.json"));
    build.onResolve({ filter: /^[^./][^:]*\/[^@]/ }, (args) => {
      if (/\.[cm]?js$/.test(args.path)) return undefined;
      let resolved;
      try {
        resolved = requireFromRoot.resolve(args.path);
      } catch {
        return undefined;
      }
      const extension = path.extname(resolved);
      if (resolved.endsWith(`${args.path.split("/").pop()}${extension}`)) return { path: `${args.path}${extension}`, external: true };
      return undefined;
    });
  },
};

/** Bundle options both programs share. */
function commonOptions() {
  const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version;
  return {
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    alias: { "@": root, "server-only": path.join(root, "node_modules", "server-only", "empty.js") },
    define: { __WORKER_VERSION__: JSON.stringify(version) },
    metafile: true,
    logLevel: "silent",
    plugins: [deepImportExtensions],
  };
}

/** Every app/api route folder, as segments under app/ (`["api", "v1", "calls", "[id]"]`). */
function apiRouteSegments(dir = path.join(root, "app", "api"), segments = ["api"]) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...apiRouteSegments(path.join(dir, entry.name), [...segments, entry.name]));
    else if (entry.name === "route.ts") found.push(segments);
  }
  return found;
}

/** Builds the console's API router bundle unless it is fresh. Returns `{ file, fresh }`; throws when the build fails. */
export async function buildConsoleApi(options = {}) {
  const outDir = options.outDir ?? path.join(root, ".console");
  const file = path.join(outDir, "api.mjs");
  // Per process: several consoles (e2e runs, the bench) may build at once; the rename is atomic.
  const temporary = `${file}.${process.pid}.tmp`;
  const builtAt = fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
  if (!options.force && builtAt > Math.max(...API_SOURCE_DIRS.map((entry) => newestMtime(path.join(root, entry))))) return { file, fresh: true };
  const { build } = await import("esbuild");
  const routes = apiRouteSegments();
  const entry = [
    'import { createApiRouter } from "@/lib/server/http/api-router";',
    ...routes.map((segments, index) => `import * as route${index} from ${JSON.stringify(`@/app/${segments.join("/")}/route`)};`),
    `/** The console's API (every app/api route), served without Next.js's request pipeline. Generated by scripts/build-bundles.mjs. */`,
    `export const handleApiRequest = createApiRouter([${routes.map((segments, index) => `{ segments: ${JSON.stringify(segments)}, load: () => route${index} }`).join(", ")}]);`,
  ].join("\n");
  await build({
    ...commonOptions(),
    stdin: { contents: entry, resolveDir: root, sourcefile: "console-api-entry.ts", loader: "ts" },
    outfile: temporary,
    banner: { js: "// Built by scripts/build-bundles.mjs from app/api/**/route.ts; do not edit." },
  });
  fs.renameSync(temporary, file);
  return { file, fresh: false };
}

/** Builds the worker bundle unless it is fresh. Returns `{ file, fresh }`. Throws when the build fails or pulls in something forbidden. */
export async function buildWorker(options = {}) {
  const outDir = options.outDir ?? path.join(root, ".worker");
  const file = path.join(outDir, "worker.mjs");
  const temporary = `${file}.${process.pid}.tmp`;
  const builtAt = fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
  if (!options.force && builtAt > Math.max(...SOURCE_DIRS.map((entry) => newestMtime(path.join(root, entry))))) return { file, fresh: true };
  const { build } = await import("esbuild");
  const result = await build({
    ...commonOptions(),
    entryPoints: [path.join(root, "lib", "worker", "main.ts")],
    outfile: temporary,
    banner: { js: "// Built by scripts/build-bundles.mjs from lib/worker/main.ts; do not edit." },
  });
  const problems = [];
  for (const [input, info] of Object.entries(result.metafile.inputs)) {
    if (FORBIDDEN_FILES.includes(input)) problems.push(`${input} is bundled`);
    for (const imported of info.imports) {
      if (imported.external && FORBIDDEN_PACKAGES.some((pattern) => pattern.test(imported.path))) problems.push(`${input} imports ${imported.path}`);
    }
  }
  if (problems.length > 0) {
    fs.rmSync(temporary, { force: true });
    throw new Error(`the worker must not contain the web server or the database: ${problems.join("; ")}`);
  }
  fs.renameSync(temporary, file);
  return { file, fresh: false, inputs: Object.keys(result.metafile.inputs) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes("--force");
  Promise.all([buildWorker({ force }), buildConsoleApi({ force })]).then(
    (built) => {
      for (const bundle of built) console.log(`build-bundles: ${bundle.fresh ? "up to date" : "built"} ${path.relative(root, bundle.file)}`);
    },
    (error) => {
      console.error(`build-bundles: ${error.message}`);
      process.exit(1);
    },
  );
}
