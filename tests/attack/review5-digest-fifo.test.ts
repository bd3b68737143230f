import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, requestCall } from "../api/approvals-fixtures";

// Review 5 (attacker): the loader opens SKILL.md with O_NONBLOCK and checks it is a regular file ("a
// FIFO never blocks"), but a call's digest (lib/server/approvals/call-digest.ts computeCallDigest)
// reads SKILL.md — and the script — with readFileSync, synchronously, on the console's one thread.
// Whoever can write a skill folder swaps SKILL.md for a FIFO after the scan: the next request, confirm
// or signature of any call of that skill opens it and the whole console freezes until someone writes
// to the pipe (here a helper process does after 3 s, so the test ends either way). Fix: read the
// digest's files as the loader does — open with O_NONBLOCK (and O_NOFOLLOW on the realpath), fstat,
// refuse anything but a regular file, bounded read — so the request answers 409 at once.

let testConsole: TestConsole;
let operator: TestPerson;
let skillDir: string;
let subprocessDir: string;
const writers: ChildProcess[] = [];

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  skillDir = writeNativeSkill(testConsole.nativeRoot, "tools", "piped", {
    frontmatter: "name: piped\ndescription: its SKILL.md becomes a FIFO after the scan\nclass: safe",
    files: { "scripts/run.sh": "#!/bin/sh\necho ran\n" },
  });
  subprocessDir = writeSkill(testConsole.root, "piped_sub", { name: "piped_sub", class: "safe", schema: { type: "object" } }, "echo '{}'");
  await reloadTestConsole();
  await createPersonaRow("runner", "mutating-with-confirm");
  operator = await createPerson("operator");
});

afterAll(() => {
  for (const writer of writers) if (writer.pid && writer.exitCode === null) process.kill(-writer.pid, "SIGKILL");
});

/** Largest delay of a 20 ms timer while `work` runs: how long the event loop was blocked. */
async function eventLoopStall(work: () => Promise<unknown>): Promise<number> {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(worst, performance.now() - last);
}

describe("a SKILL.md swapped for a FIFO after the scan", () => {
  it("does not freeze the console when a call is requested (the request fails at once instead)", async () => {
    const skillFile = path.join(skillDir, "SKILL.md");
    fs.rmSync(skillFile);
    execFileSync("mkfifo", [skillFile]);
    // After 3 s, feeds every reader that opens the pipe for 20 s (a blocked console would otherwise
    // stay blocked for good: the runner reads SKILL.md again before the spawn); killed in afterAll.
    const writer = spawn("/bin/sh", ["-c", `sleep 3; timeout --foreground 20 sh -c 'while :; do printf x > "$0"; sleep 0.1; done' ${JSON.stringify(skillFile)}`], {
      detached: true,
      stdio: "ignore",
    });
    writers.push(writer);
    let status = 0;
    const stall = await eventLoopStall(async () => {
      const response = await requestCall("piped", { args: { script: "run.sh", args: [] }, persona: "runner" }, operator.headers);
      status = response.status;
      await response.text();
    });
    expect(stall).toBeLessThan(1000);
    expect(status).toBe(409);
  });

  it("a subprocess skill's skill.json swapped for a FIFO does not freeze it either", async () => {
    const manifest = path.join(subprocessDir, "skill.json");
    fs.rmSync(manifest);
    execFileSync("mkfifo", [manifest]);
    const writer = spawn("/bin/sh", ["-c", `sleep 3; timeout --foreground 20 sh -c 'while :; do printf x > "$0"; sleep 0.1; done' ${JSON.stringify(manifest)}`], {
      detached: true,
      stdio: "ignore",
    });
    writers.push(writer);
    const stall = await eventLoopStall(async () => {
      const response = await requestCall("piped_sub", { args: {}, persona: "runner" }, operator.headers);
      await response.text();
    });
    expect(stall).toBeLessThan(1000);
  });
});
