/**
 * `npm start` and `npm run worker` must not outlive npm: a SIGTERM to npm makes it exit without
 * passing the signal on, which left the console (or the worker) running with no parent, still serving
 * and holding the database lock. Under npm the launchers watch their parent (scripts/parent-watch.mjs).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "parent-watch-"));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

describe("stopWhenNpmGoesAway", () => {
  it("calls back once the npm that started the launcher has exited", async () => {
    const marker = path.join(temp, "gone");
    const child = path.join(temp, "launcher.mjs");
    fs.writeFileSync(
      child,
      [
        `import fs from "node:fs";`,
        `import { stopWhenNpmGoesAway } from ${JSON.stringify(path.resolve(__dirname, "../../scripts/parent-watch.mjs"))};`,
        `stopWhenNpmGoesAway(() => { fs.writeFileSync(${JSON.stringify(marker)}, "gone"); process.exit(0); });`,
        // Stays alive like a launcher serving its child, until the watch stops it.
        `setInterval(() => undefined, 1000);`,
      ].join("\n"),
    );
    // The stand-in for npm: starts the launcher in the background, then exits without a word to it.
    const npm = spawn("bash", ["-c", `${JSON.stringify(process.execPath)} ${JSON.stringify(child)} & echo $!; sleep 0.3`], { env: { ...process.env, npm_lifecycle_event: "start" }, stdio: ["ignore", "pipe", "inherit"] });
    let launcherPid = 0;
    npm.stdout!.on("data", (chunk: Buffer) => (launcherPid = Number(chunk.toString().trim())));
    await new Promise((resolve) => npm.once("exit", resolve));
    expect(launcherPid).toBeGreaterThan(1);
    await expect.poll(() => fs.existsSync(marker), { timeout: 10_000, interval: 100 }).toBe(true);
    // And it ended.
    await expect.poll(() => fs.existsSync(`/proc/${launcherPid}`), { timeout: 5_000, interval: 100 }).toBe(false);
  });
});
