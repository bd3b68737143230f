import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeTempDir, run, specFor, start, writeScript } from "./helpers";

describe("startProcess: spawn", () => {
  it("gives the child exactly the given environment", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/env", env: { ONE: "1", SPACED: "a b", EMPTY: "" } }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, signal: null, stdout: "ONE=1\nSPACED=a b\nEMPTY=\n", error: null });
  });

  it("gives an empty environment when env is empty: not even PATH", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/env", env: {} }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: "" });
  });

  it("runs in the given working directory", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/pwd", env: {} }));
    expect(outcome.stdout).toBe(`${dir}\n`);
  });

  it("passes args verbatim, without a shell", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/printf", args: ["%s|", "a b", "$HOME", "*", "'q'"], env: {} }));
    expect(outcome.stdout).toBe("a b|$HOME|*|'q'|");
  });

  it("makes the child the leader of a new process group and reports it once", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "group.sh", 'read -r _ _ _ _ pgrp _ < /proc/$$/stat; echo "{\\"pid\\":$$,\\"pgrp\\":$pgrp}"\n');
    const { running, events } = start(specFor(dir, { command: script }));
    expect(events).toEqual(["spawn pid=pgid"]);
    const outcome = await running.done;
    expect(JSON.parse(outcome.stdout)).toEqual({ pid: running.pid, pgrp: running.pid });
    expect(running.pgid).toBe(running.pid);
  });

  it("writes stdin and closes it", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/cat", stdin: '{"path":"/var/cache","dry_run":true}' }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: '{"path":"/var/cache","dry_run":true}' });
  });

  it("writes a stdin of several MiB", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/wc", args: ["-c"], stdin: "x".repeat(8 * 1024 * 1024) }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: "8388608\n" });
  });

  it("survives a child that exits without reading a large stdin", async () => {
    const dir = makeTempDir();
    const script = writeScript(dir, "ignore-stdin.sh", 'echo \'{"ok":true}\'\nexit 0\n');
    const outcome = await run(specFor(dir, { command: script, stdin: "x".repeat(6 * 1024 * 1024) }));
    expect(outcome).toMatchObject({ end: "exited", exitCode: 0, signal: null, stdout: '{"ok":true}\n', error: null });
  });

  it("reports the exit code and the killing signal of the child", async () => {
    const dir = makeTempDir();
    const exits = writeScript(dir, "exit3.sh", "exit 3\n");
    const segv = writeScript(dir, "segv.sh", "kill -SEGV $$\n");
    expect(await run(specFor(dir, { command: exits }))).toMatchObject({ end: "exited", exitCode: 3, signal: null });
    expect(await run(specFor(dir, { command: segv }))).toMatchObject({ end: "exited", exitCode: null, signal: "SIGSEGV" });
  });
});

describe("startProcess: spawn failures", () => {
  it.each([
    {
      name: "a missing executable",
      prepare: (dir: string) => path.join(dir, "missing.sh"),
      error: (dir: string) => `cannot start ${dir}/missing.sh: no such file, or its #! interpreter is missing (ENOENT)`,
    },
    {
      name: "a missing #! interpreter",
      prepare: (dir: string) => {
        writeFileSync(path.join(dir, "bad-shebang.sh"), "#!/nonexistent/interpreter\n");
        chmodSync(path.join(dir, "bad-shebang.sh"), 0o755);
        return path.join(dir, "bad-shebang.sh");
      },
      error: (dir: string) => `cannot start ${dir}/bad-shebang.sh: no such file, or its #! interpreter is missing (ENOENT)`,
    },
    {
      name: "a file that is not executable",
      prepare: (dir: string) => {
        writeFileSync(path.join(dir, "plain.sh"), "#!/bin/bash\n");
        chmodSync(path.join(dir, "plain.sh"), 0o644);
        return path.join(dir, "plain.sh");
      },
      error: (dir: string) => `cannot start ${dir}/plain.sh: permission denied, is it an executable file? (EACCES)`,
    },
    {
      name: "a directory",
      prepare: (dir: string) => {
        mkdirSync(path.join(dir, "folder"));
        return path.join(dir, "folder");
      },
      error: (dir: string) => `cannot start ${dir}/folder: permission denied, is it an executable file? (EACCES)`,
    },
  ])("reports $name as spawn_failed without throwing", async ({ prepare, error }) => {
    const dir = makeTempDir();
    const { running, events } = start(specFor(dir, { command: prepare(dir) }));
    expect(running.pid).toBeNull();
    expect(running.pgid).toBeNull();
    running.cancel();
    expect(await running.done).toEqual({
      end: "spawn_failed",
      exitCode: null,
      signal: null,
      stdout: "",
      durationMs: expect.any(Number),
      error: error(dir),
    });
    expect(events).toEqual([]);
  });

  it("reports a missing working directory", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/true", cwd: path.join(dir, "gone") }));
    expect(outcome).toMatchObject({
      end: "spawn_failed",
      error: `cannot start /usr/bin/true: working directory ${dir}/gone does not exist or is not a directory (ENOENT)`,
    });
  });

  it("reports an argument Node refuses (a NUL byte) without throwing", async () => {
    const dir = makeTempDir();
    const outcome = await run(specFor(dir, { command: "/usr/bin/true", args: ["a\0b"] }));
    expect(outcome.end).toBe("spawn_failed");
    expect(outcome.error).toMatch(/^cannot start \/usr\/bin\/true: .*null bytes/);
  });
});
