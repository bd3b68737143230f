/**
 * Builds the worker program (lib/worker/main.ts) into `.worker/worker.mjs` with esbuild: one ESM file
 * for Node 20, the project's `@/` imports bundled in, npm packages left as imports of node_modules.
 * Refuses a bundle that would pull in the web server or the database (DESIGN.md: a worker has no
 * Next.js and no database credentials): any import of next, react, @prisma/*, better-sqlite3 or
 * better-auth, or of lib/server/db.ts, fails the build with the chain that brought it in.
 * `buildWorker({ outDir? })` returns the output file; run as a script it builds and prints it. A build
 * is skipped when the output is newer than every source (`fresh: true` in the result).
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FORBIDDEN_PACKAGES = [/^next(\/|$)/, /^react(-dom)?(\/|$)/, /^@prisma\//, /^better-sqlite3$/, /^better-auth(\/|$)/];
const FORBIDDEN_FILES = ["lib/server/db.ts"];
const SOURCE_DIRS = ["lib", "package.json", "package-lock.json"];

function newestMtime(entry) {
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
const deepImportExtensions = {
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

/** Builds the worker bundle unless it is fresh. Returns `{ file, fresh }`. Throws when the build fails or pulls in something forbidden. */
export async function buildWorker(options = {}) {
  const outDir = options.outDir ?? path.join(root, ".worker");
  const file = path.join(outDir, "worker.mjs");
  const builtAt = fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
  if (!options.force && builtAt > Math.max(...SOURCE_DIRS.map((entry) => newestMtime(path.join(root, entry))))) return { file, fresh: true };
  const { build } = await import("esbuild");
  const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version;
  const result = await build({
    entryPoints: [path.join(root, "lib", "worker", "main.ts")],
    outfile: `${file}.tmp`,
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
    banner: { js: "// Built by scripts/build-worker.mjs from lib/worker/main.ts; do not edit." },
  });
  const problems = [];
  for (const [input, info] of Object.entries(result.metafile.inputs)) {
    if (FORBIDDEN_FILES.includes(input)) problems.push(`${input} is bundled`);
    for (const imported of info.imports) {
      if (imported.external && FORBIDDEN_PACKAGES.some((pattern) => pattern.test(imported.path))) problems.push(`${input} imports ${imported.path}`);
    }
  }
  if (problems.length > 0) {
    fs.rmSync(`${file}.tmp`, { force: true });
    throw new Error(`the worker must not contain the web server or the database: ${problems.join("; ")}`);
  }
  fs.renameSync(`${file}.tmp`, file);
  return { file, fresh: false, inputs: Object.keys(result.metafile.inputs) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildWorker({ force: process.argv.includes("--force") }).then(
    (built) => console.log(`build-worker: ${built.fresh ? "up to date" : "built"} ${path.relative(root, built.file)}`),
    (error) => {
      console.error(`build-worker: ${error.message}`);
      process.exit(1);
    },
  );
}
