/**
 * The bundled disk_cleaner runs as root on folders such as /tmp, where any local user may create and
 * rename entries. If it reaches files by path, a user who swaps a folder it already listed for a
 * symlink (say to /etc) makes it stat and unlink files outside the folder it was asked to clean: the
 * classic symlink race of root-run cleaners. This test plays that user deterministically: a harness
 * runs the skill's own run.py and performs the swap the moment the skill has looked at the first file
 * of the folder `a` (whichever stat call it uses), as a racing attacker eventually would.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "../loader/loader-fixtures";

const RUN_PY = fileURLToPath(new URL("../../skills/ops/disk-cleaner/run.py", import.meta.url));

const HARNESS = String.raw`
import os, runpy, sys
folder, outside, run_py = sys.argv[1], sys.argv[2], sys.argv[3]
state = {"swapped": False}
def swap():
    if state["swapped"]:
        return
    state["swapped"] = True
    os.rename(folder, folder + ".moved")
    os.symlink(outside, folder)
def hooked(real):
    def call(target, *args, **kwargs):
        result = real(target, *args, **kwargs)
        if isinstance(target, str) and os.path.basename(target) == "aaa":
            swap()
        return result
    return call
os.stat = hooked(os.stat)
os.lstat = hooked(os.lstat)
sys.argv = [run_py]
runpy.run_path(run_py, run_name="__main__")
`;

function runHarness(harness: string, args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Only PATH, like the executor gives it; the cast is because Next's types declare NODE_ENV as always present.
    const env = { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv;
    const child = spawn("python3", [harness, ...args], { cwd: path.dirname(RUN_PY), env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe("disk_cleaner and a folder swapped for a symlink while it cleans", () => {
  it("never deletes a file outside the folder it was asked to clean", async () => {
    const dir = makeTempDir("cleaner-race-");
    const old = new Date(Date.now() - 30 * 86_400_000);
    const stale = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      fs.utimesSync(file, old, old);
    };
    const target = path.join(dir, "tmp");
    const folder = path.join(target, "a");
    stale(path.join(folder, "aaa"), "attacker's bait");
    stale(path.join(folder, "shadow"), "attacker's decoy");
    const outside = path.join(dir, "etc");
    const victim = path.join(outside, "shadow");
    stale(victim, "root:$6$…");
    const harness = path.join(dir, "harness.py");
    fs.writeFileSync(harness, HARNESS);

    const run = await runHarness(harness, [folder, outside, RUN_PY], JSON.stringify({ path: target, dry_run: false }));
    expect(fs.lstatSync(folder).isSymbolicLink(), "the harness swapped the folder").toBe(true);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(victim)).toBe(true);
    expect(fs.readFileSync(victim, "utf8")).toBe("root:$6$…");
  });
});
