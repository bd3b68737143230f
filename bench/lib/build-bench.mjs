/**
 * Bundles the benchmark's TypeScript helpers (bench/lib/*.ts, which import the project's own modules)
 * into `.bench-build/<name>.mjs` with esbuild, the way scripts/build-bundles.mjs bundles the worker (its plugin and staleness check):
 * one ESM file for Node 20, the project's `@/` imports bundled in, npm packages left as imports of
 * node_modules (a deep import of a CommonJS package gets its file extension, as Node's ESM loader
 * needs). Skips the build when the output is newer than bench/lib and lib/.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deepImportExtensions, newestMtime } from "../../scripts/build-bundles.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const outDir = path.join(root, ".bench-build");

/**
 * Builds bench/lib/<name>.ts into .bench-build/<name>.mjs unless fresh and returns the output's
 * absolute path. Throws when esbuild fails.
 */
export async function buildBenchModule(name) {
  const file = path.join(outDir, `${name}.mjs`);
  const builtAt = fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0;
  const sources = [path.join(root, "bench", "lib"), path.join(root, "lib"), path.join(root, "package-lock.json")];
  if (builtAt > Math.max(...sources.map(newestMtime))) return file;
  const { build } = await import("esbuild");
  fs.mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(root, "bench", "lib", `${name}.ts`)],
    outfile: `${file}.tmp`,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    alias: { "@": root },
    define: { __WORKER_VERSION__: JSON.stringify("bench") },
    logLevel: "silent",
    plugins: [deepImportExtensions],
    banner: { js: `// Built by bench/lib/build-bench.mjs from bench/lib/${name}.ts; do not edit.` },
  });
  fs.renameSync(`${file}.tmp`, file);
  return file;
}
