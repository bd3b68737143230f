import path from "node:path";
import { describe, expect, it } from "vitest";
import { isGroupAlive } from "@/lib/server/executor";
import { isAlive, makeTempDir, readPid, run, specFor, start, writeScript } from "./helpers";

/**
 * A child that ignores TERM and starts a grandchild that also ignores it and would sleep 30 s; both
 * write their pid, then the child says "ready" on stderr.
 */
function stubbornFamily(dir: string): string {
  return writeScript(
    dir,
    "stubborn.sh",
    `trap '' TERM
sleep 30 &
echo $! > ${dir}/grandchild.pid
echo $$ > ${dir}/child.pid
echo ready >&2
wait
`,
  );
}

describe("startProcess: timeout", () => {
  it("terminates the whole group, TERM then KILL, and ends only once it is gone", async () => {
    const dir = makeTempDir();
    const { running, lines } = start(specFor(dir, { command: stubbornFamily(dir), timeoutMs: 500, killGraceMs: 200 }));
    const outcome = await running.done;
    expect(outcome).toEqual({ end: "timed_out", exitCode: null, signal: "SIGKILL", stdout: "", durationMs: expect.any(Number), error: null });
    expect(lines).toEqual(["ready"]);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(700 - 5);
    expect(outcome.durationMs).toBeLessThan(3000);
    expect(isAlive(readPid(path.join(dir, "child.pid")))).toBe(false);
    expect(isAlive(readPid(path.join(dir, "grandchild.pid")))).toBe(false);
    expect(isGroupAlive(running.pgid ?? -1)).toBe(false);
  });

  it("sends TERM first: a child that exits on TERM ends within the grace", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "polite.sh", `trap 'echo "got TERM" >&2; exit 7' TERM\nsleep 30 &\nwait\n`);
    const outcome = await run(specFor(dir, { command: script, timeoutMs: 300, killGraceMs: 1500 }));
    expect(outcome).toMatchObject({ end: "timed_out", exitCode: 7, signal: null, error: null });
    expect(outcome.lines).toEqual(["got TERM"]);
    expect(outcome.durationMs).toBeLessThan(1500);
  });
});

describe("startProcess: cancel", () => {
  it("terminates the whole group and ends cancelled; a second cancel is harmless", async () => {
    const dir = makeTempDir();
    const { running } = start(specFor(dir, { command: stubbornFamily(dir), killGraceMs: 200 }), (line, process) => {
      if (line === "ready") {
        process.cancel();
        process.cancel();
      }
    });
    const outcome = await running.done;
    expect(outcome).toMatchObject({ end: "cancelled", exitCode: null, signal: "SIGKILL", error: null });
    expect(outcome.durationMs).toBeLessThan(3000);
    expect(isAlive(readPid(path.join(dir, "child.pid")))).toBe(false);
    expect(isAlive(readPid(path.join(dir, "grandchild.pid")))).toBe(false);
  });

  it("cancels right after start", async () => {
    const dir = makeTempDir();
    const { running } = start(specFor(dir, { command: "/usr/bin/sleep", args: ["30"] }));
    running.cancel();
    expect(await running.done).toMatchObject({ end: "cancelled", exitCode: null, signal: "SIGTERM" });
  });

  it("ignores cancel after the child exited", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "quick.sh", `echo '{"ok":true}'\n`);
    const { running } = start(specFor(dir, { command: script }));
    const outcome = await running.done;
    running.cancel();
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: '{"ok":true}\n' });
    expect(await running.done).toBe(outcome);
  });
});

describe("startProcess: leftovers after the direct child exits", () => {
  it("does not wait for a grandchild holding stdout, keeps the result and kills the grandchild", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "leaves-sleeper.sh", `sleep 30 &\necho $! > ${dir}/grandchild.pid\necho '{"ok":true}'\nexit 0\n`);
    const { running } = start(specFor(dir, { command: script, exitDrainMs: 200, killGraceMs: 200 }));
    const outcome = await running.done;
    expect(outcome).toEqual({ end: "exited", exitCode: 0, signal: null, stdout: '{"ok":true}\n', durationMs: expect.any(Number), error: null });
    expect(outcome.durationMs).toBeLessThan(3000);
    expect(isAlive(readPid(path.join(dir, "grandchild.pid")))).toBe(false);
  });

  it("kills a grandchild that ignores TERM and holds stdout after the grace", async () => {
    const dir = makeTempDir();
    const script = writeScript(
      dir,
      "leaves-stubborn.sh",
      `(trap '' TERM; echo late; exec sleep 30) &\necho $! > ${dir}/grandchild.pid\necho '{"ok":true}'\nexit 4\n`,
    );
    const outcome = await run(specFor(dir, { command: script, exitDrainMs: 300, killGraceMs: 200 }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 4, signal: null, error: null });
    expect(outcome.stdout.split("\n").sort()).toEqual(["", "late", '{"ok":true}']);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(500 - 5);
    expect(outcome.durationMs).toBeLessThan(3000);
    expect(isAlive(readPid(path.join(dir, "grandchild.pid")))).toBe(false);
  });

  it("kills a leftover group member that closed its pipes", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "daemon.sh", `sleep 30 >/dev/null 2>&1 </dev/null &\necho $! > ${dir}/grandchild.pid\necho '{}'\n`);
    const outcome = await run(specFor(dir, { command: script, exitDrainMs: 5000, killGraceMs: 200 }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: "{}\n" });
    expect(outcome.durationMs).toBeLessThan(2000);
    expect(isAlive(readPid(path.join(dir, "grandchild.pid")))).toBe(false);
  });
});
