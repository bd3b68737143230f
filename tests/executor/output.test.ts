import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeTempDir, run, specFor, start, writeScript } from "./helpers";

describe("startProcess: stderr lines", () => {
  it("passes each stderr line to the hook while the child is still running", async () => {
    const dir = makeTempDir();
    const marker = path.join(dir, "seen");
    // The child only goes on once the test has created the marker, which it does on seeing the line.
    const script = writeScript(
      dir,
      "live.sh",
      `echo "first line" >&2\nuntil [ -e ${marker} ]; do sleep 0.02; done\nprintf 'second\\r\\nlast without newline' >&2\necho '{}'\n`,
    );
    const { running, events } = start(specFor(dir, { command: script }), (line) => {
      if (line === "first line") writeFileSync(marker, "");
    });
    const outcome = await running.done;
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: "{}\n" });
    expect(events).toEqual(["spawn pid=pgid", "line:first line", "line:second", "line:last without newline"]);
  });

  it("cuts a giant line without newline into 64 KiB pieces", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "giant.sh", "head -c 200000 /dev/zero | tr '\\0' a >&2\n");
    const outcome = await run(specFor(dir, { command: script, stderrLimitBytes: 1024 * 1024 }));
    expect(outcome.end).toBe("exited");
    expect(outcome.lines.map((line) => line.length)).toEqual([65536, 65536, 65536, 3392]);
    expect(outcome.lines.every((line) => /^a+$/.test(line))).toBe(true);
  });

  it("stops the timeline at the stderr limit, keeps draining and lets the call go on", async () => {
    const dir = makeTempDir();
    // 200 lines of 9 bytes, then 1 MiB more: far beyond a pipe buffer, so a child nobody drains would block.
    const script = writeScript(
      dir,
      "chatty.sh",
      "for i in $(seq -w 1 200); do printf 'line %s\\n' $i >&2; done\nhead -c 1048576 /dev/zero >&2\necho '{\"done\":true}'\n",
    );
    const outcome = await run(specFor(dir, { command: script, stderrLimitBytes: 1000 }));
    const kept = Array.from({ length: 111 }, (_, i) => `line:line ${String(i + 1).padStart(3, "0")}`);
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: '{"done":true}\n' });
    expect(outcome.events).toEqual(["spawn pid=pgid", ...kept, "line:l", "truncated:1000"]);
  });
});

describe("startProcess: stdout", () => {
  it("keeps stdout up to the limit", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "exact.sh", "head -c 65536 /dev/zero | tr '\\0' y\n");
    const outcome = await run(specFor(dir, { command: script, stdoutLimitBytes: 65536 }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: "y".repeat(65536) });
  });

  it("ends a flood past the limit with stdout_overflow and terminates the child", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/yes", stdoutLimitBytes: 65536 }));
    expect(outcome).toMatchObject({ end: "stdout_overflow", exitCode: null, signal: "SIGTERM", stdout: "y\n".repeat(32768), error: null });
    expect(outcome.durationMs).toBeLessThan(2000);
  });
});
