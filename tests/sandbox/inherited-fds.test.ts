/**
 * A descriptor the worker holds without close-on-exec would reach every sandbox (DESIGN.md "Workers
 * and the sandbox": nothing else of the host). findInheritableFds remembers the descriptors it found
 * close-on-exec, so it does not read one fdinfo file per descriptor per call; a descriptor without
 * close-on-exec must be reported however often it is asked, and a closed one no more.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let dir: string;
let bundle: string;
let executorBundle: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "inherited-fds-"));
  bundle = path.join(dir, "inherited-fds.mjs");
  await build({ entryPoints: [path.resolve(__dirname, "../../lib/server/executor/sandbox/inherited-fds.ts")], bundle: true, platform: "node", format: "esm", outfile: bundle, logLevel: "silent" });
  executorBundle = path.join(dir, "executor.mjs");
  await build({ entryPoints: [path.resolve(__dirname, "../../lib/server/executor/index.ts")], bundle: true, platform: "node", format: "esm", outfile: executorBundle, logLevel: "silent" });
  fs.writeFileSync(
    path.join(dir, "launcher-probe.mjs"),
    [
      `import { launchProcess, ProcessLauncher } from ${JSON.stringify(executorBundle)};`,
      `const launcher = new ProcessLauncher();`,
      `const spec = { command: "/bin/sh", args: ["-c", "ls /proc/$$/fd"], cwd: "/", env: { PATH: "/usr/bin:/bin" }, stdin: "", timeoutMs: 5000, killGraceMs: 200, exitDrainMs: 200, stdoutLimitBytes: 65536, stderrLimitBytes: 65536 };`,
      `const running = await launchProcess(launcher, spec, {});`,
      `const outcome = await running.done;`,
      `const launcherFds = fs.readdirSync("/proc/" + launcher.pid + "/fd").map(Number).sort((a, b) => a - b);`,
      `await launcher.close();`,
      `console.log(JSON.stringify({ child: outcome.stdout.trim().split(/\\s+/).map(Number).sort((a, b) => a - b), launcherHas20or30: launcherFds.some((fd) => fd === 20 || fd === 30), stillHere: findInheritableFds() }));`,
    ].join("\n").replace(/^/, `import fs from "node:fs";\nimport { findInheritableFds } from ${JSON.stringify(bundle)};\n`),
  );
  fs.writeFileSync(
    path.join(dir, "probe.mjs"),
    [
      `import fs from "node:fs";`,
      `import { closeInheritableFds, findInheritableFds } from ${JSON.stringify(bundle)};`,
      `const seen = [];`,
      // Three checks in a row, with descriptors Node opens (close-on-exec) coming and going between them.
      `for (let i = 0; i < 3; i++) { const fd = fs.openSync("/dev/null", "r"); seen.push(findInheritableFds()); fs.closeSync(fd); }`,
      `const closed = closeInheritableFds();`,
      `seen.push(findInheritableFds());`,
      `console.log(JSON.stringify({ seen, closed }));`,
    ].join("\n"),
  );
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("findInheritableFds", () => {
  it("reports a descriptor without close-on-exec on every check, and none once it is closed", () => {
    // bash closes whatever it inherited above 2, then opens fd 20 and 30 without close-on-exec, as a
    // careless launcher would; node inherits them.
    const closeInherited = `for fd in $(ls /proc/$$/fd); do if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null; fi; done`;
    const out = execFileSync("bash", ["-c", `${closeInherited}; exec 20</dev/null 30>${JSON.stringify(path.join(dir, "leak"))}; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(dir, "probe.mjs"))}`], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ seen: [[20, 30], [20, 30], [20, 30], []], closed: [20, 30] });
  });
});

describe("ProcessLauncher and inherited descriptors (the worker's calls skip the per-call check)", () => {
  it("a call forked by the launcher holds only its stdio although the process that started the launcher still holds 20 and 30", () => {
    const closeInherited = `for fd in $(ls /proc/$$/fd); do if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null; fi; done`;
    const out = execFileSync("bash", ["-c", `${closeInherited}; exec 20</dev/null 30>${JSON.stringify(path.join(dir, "leak2"))}; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(dir, "launcher-probe.mjs"))}`], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ child: [0, 1, 2], launcherHas20or30: false, stillHere: [20, 30] });
  });
});
