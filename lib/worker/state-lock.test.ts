import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireStateLock, StateFolderInUseError } from "./state-lock";

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "state-lock-"));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

/** Takes the lock of `dir` from a separate Node process (the module bundled by esbuild); resolves its first line ("ok" or the error) and a kill -9. */
async function lockFromAnotherProcess(dir: string, name: string): Promise<{ line: string; kill: () => void }> {
  const bundle = path.join(temp, "state-lock.mjs");
  const { build } = await import("esbuild");
  await build({ entryPoints: [path.resolve(__dirname, "state-lock.ts")], bundle: true, platform: "node", format: "esm", outfile: bundle, logLevel: "silent" });
  const script = `
    const { acquireStateLock } = await import(${JSON.stringify(bundle)});
    try { await acquireStateLock(${JSON.stringify(dir)}, ${JSON.stringify(name)}); console.log("ok"); } catch (error) { console.log(error.message); process.exit(0); }
    setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve({ line: text.split("\n")[0]!, kill: () => child.kill("SIGKILL") });
    });
  });
}

describe("acquireStateLock (one worker per WORKER_STATE_DIR)", () => {
  it("refuses a second holder naming the first, and is free again once the holder lets go", async () => {
    const dir = path.join(temp, "a");
    const first = await acquireStateLock(dir, "first");
    const error = await acquireStateLock(dir, "second").then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StateFolderInUseError);
    expect((error as Error).message).toBe(`the worker state folder ${dir} is in use by worker first (pid ${process.pid}); give each worker its own WORKER_STATE_DIR (e.g. WORKER_STATE_DIR=./data/worker-second)`);
    first.release();
    await expect.poll(async () => {
      try {
        (await acquireStateLock(dir, "third")).release();
        return "free";
      } catch {
        return "held";
      }
    }).toBe("free");
  });

  it("is released when its holder process is killed with -9, never left stale", async () => {
    const dir = path.join(temp, "b");
    const holder = await lockFromAnotherProcess(dir, "doomed");
    expect(holder.line).toBe("ok");
    await expect(acquireStateLock(dir, "next")).rejects.toThrow(/is in use by worker doomed/);
    holder.kill();
    await expect.poll(async () => {
      try {
        (await acquireStateLock(dir, "next")).release();
        return "free";
      } catch {
        return "held";
      }
    }, { timeout: 5_000 }).toBe("free");
  });

  it("gives the lock to exactly one of many workers starting at once", async () => {
    for (let round = 0; round < 5; round++) {
      const dir = path.join(temp, `race-${round}`);
      const results = await Promise.allSettled(Array.from({ length: 6 }, (_, index) => acquireStateLock(dir, `w${index}`)));
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      for (const result of results) if (result.status === "fulfilled") result.value.release();
    }
  });
});
