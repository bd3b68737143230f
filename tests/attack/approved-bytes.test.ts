/**
 * The bytes that were approved are the bytes that run (issue 9 point 2): the digest covers the skill's
 * whole folder and the worker runs the call from a private read-only snapshot of exactly the bytes it
 * hashed. Tried as an attacker would: an unprivileged inotify watcher renames an evil file over the
 * entry the moment the worker opens it for its last digest check (the race that once ran the swapped
 * script under a valid two-person approval, 3 times in 3), and a helper the entry `source`s is edited
 * between signatures, before the spawn, and while the call runs. Every call ends with the approved code
 * running or refused, never the new code.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import { approvalOf, createPersonaRow, errorOf, requestCall, requestWaitingCall, sign, waitForStatus } from "../api/approvals-fixtures";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";

let testConsole: TestConsole;
let markers: string;
let requester: TestPerson;
let approvers: TestPerson[];
const watchers: ChildProcess[] = [];

// Watches the skill folder with inotify and renames `evil` over `run.sh` as soon as anyone opens it.
const WATCHER = `
import ctypes, os, struct, sys
libc = ctypes.CDLL("libc.so.6", use_errno=True)
folder, evil = sys.argv[1], sys.argv[2]
fd = libc.inotify_init1(0)
IN_OPEN = 0x20
libc.inotify_add_watch(fd, folder.encode(), IN_OPEN)
print("armed", flush=True)
while True:
    data = os.read(fd, 4096)
    offset = 0
    while offset < len(data):
        wd, mask, cookie, length = struct.unpack_from("iIII", data, offset)
        name = data[offset + 16: offset + 16 + length].rstrip(b"\\0").decode()
        offset += 16 + length
        if name == "run.sh":
            os.rename(evil, os.path.join(folder, "run.sh"))
            print("swapped", flush=True)
            sys.exit(0)
`;

function lines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

function goodScript(label: string): string {
  return `echo "${label} $(cat "$(dirname "$0")/lib.sh" | tr -d '\\n')" >> "$MARKER_DIR/runs"; echo '{"ran": "${label}"}'`;
}

function writeWiper(): string {
  const folder = writeSkill(
    testConsole.root,
    "wiper",
    { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"], sandbox: { write: [markers] }, schema: { type: "object", properties: { round: { type: "integer" } } } },
    goodScript("approved"),
  );
  fs.writeFileSync(path.join(folder, "lib.sh"), "helper-v1\n");
  return folder;
}

/** Requests a wiper call under dual-sign and gets its two signatures; returns the call, approved and queued or run. */
async function approvedCall(round: number): Promise<Call> {
  const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers, { round });
  expect((await sign(approvalId!, approvers[0]!.headers)).status).toBe(200);
  expect(await approvalOf(await sign(approvalId!, approvers[1]!.headers))).toMatchObject({ status: "approved" });
  return call;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "", SKILL_SANDBOX: "bwrap", SKILL_MAX_CONCURRENT_CALLS: "1" });
  // Outside the test console's folder, which every sandbox hides: the skills declare they write here.
  markers = fs.mkdtempSync("/tmp/skill-markers-");
  fs.chmodSync(markers, 0o777);
  process.env.MARKER_DIR = markers;
  process.env.SKILL_SANDBOX_ALLOW_PATHS = markers;
  writeWiper();
  writeSkill(
    testConsole.root,
    "blocker",
    { name: "blocker", env_allow: ["MARKER_DIR"], sandbox: { read: [markers] }, schema: { type: "object", properties: { gate: { type: "string", pattern: "^[a-z0-9]+$" } } } },
    `gate=$(sed -E 's/.*"gate":"([a-z0-9]+)".*/\\1/'); while [ ! -e "$MARKER_DIR/$gate" ]; do sleep 0.02; done; echo '{}'`,
  );
  await createPersonaRow("dual", "dual-sign-required");
  requester = await createPerson("operator");
  approvers = [await createPerson("approver"), await createPerson("approver")];
});

afterAll(() => {
  for (const watcher of watchers) watcher.kill("SIGKILL");
  fs.rmSync(markers, { recursive: true, force: true });
});

describe("a file renamed over the entry at the worker's last check", () => {
  it.each([1, 2, 3])("round %i: the approved bytes run, never the swapped ones", async (round) => {
    const folder = writeWiper();
    // The only slot is busy: the approved call waits in the queue, and the watcher is armed before the worker looks.
    const gate = `gate${round}`;
    const blocker = (await (await requestCall("blocker", { args: { gate }, wait: false })).json()) as { call: Call };
    await waitForStatus(blocker.call.id, ["running"]);
    const call = await approvedCall(round);
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("queued");
    const evil = path.join(testConsole.dir, `evil-${round}.sh`);
    fs.writeFileSync(evil, `#!/bin/bash\necho "EVIL" >> "$MARKER_DIR/runs"\necho '{"ran": "evil"}'\n`, { mode: 0o755 });
    const watcher = spawn("python3", ["-c", WATCHER, folder, evil], { stdio: ["ignore", "pipe", "inherit"] });
    watchers.push(watcher);
    const said: string[] = [];
    watcher.stdout!.on("data", (chunk: Buffer) => said.push(chunk.toString()));
    await expect.poll(() => said.join("")).toContain("armed");

    fs.writeFileSync(path.join(markers, gate), "");
    const ended = await waitForStatus(call.id, ["succeeded", "failed", "expired"]);
    await expect.poll(() => said.join("")).toContain("swapped");
    // The live folder now holds the evil script; what ran (or was refused) is decided by the snapshot.
    expect(fs.readFileSync(path.join(folder, "run.sh"), "utf8")).toContain("EVIL");
    expect(lines(path.join(markers, "runs")).filter((line) => line.includes("EVIL"))).toEqual([]);
    if (ended === "succeeded") {
      expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).result).toBe('{"ran": "approved"}');
    } else {
      expect(ended).toBe("expired");
      expect(await db().approval.findUniqueOrThrow({ where: { callId: call.id } })).toMatchObject({ status: "void" });
    }
  });
});

describe("a helper the entry sources", () => {
  it("edited between the signatures voids the approval, naming the helper", async () => {
    const folder = writeWiper();
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers, { round: 10 });
    expect((await sign(approvalId!, approvers[0]!.headers)).status).toBe(200);
    fs.writeFileSync(path.join(folder, "lib.sh"), "helper-evil\n");
    const second = await sign(approvalId!, approvers[1]!.headers);
    expect(second.status).toBe(409);
    expect((await errorOf(second)).message).toMatch(new RegExp(`^approval ${approvalId} is void: lib\\.sh changed since the call was requested`));
    expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "expired" });
    expect(lines(path.join(markers, "runs")).filter((line) => line.includes("helper-evil"))).toEqual([]);
  });

  it("edited after the approval, before the spawn, makes the worker refuse the call", async () => {
    const folder = writeWiper();
    const blocker = (await (await requestCall("blocker", { args: { gate: "gate11" }, wait: false })).json()) as { call: Call };
    await waitForStatus(blocker.call.id, ["running"]);
    const call = await approvedCall(11);
    fs.writeFileSync(path.join(folder, "lib.sh"), "helper-evil\n");
    fs.writeFileSync(path.join(markers, "gate11"), "");
    expect(await waitForStatus(call.id, ["succeeded", "failed", "expired"])).toBe("expired");
    const row = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    expect(row.error).toMatch(/^lib\.sh changed since the call was requested \(digest [0-9a-f]{12}… is now [0-9a-f]{12}…\)$/);
    expect(row.startedAt).toBeNull();
    expect(await db().approval.findUniqueOrThrow({ where: { callId: call.id } })).toMatchObject({ status: "void", reason: row.error });
    expect(lines(path.join(markers, "runs")).filter((line) => line.includes("helper-evil"))).toEqual([]);
  });

  it("edited while the call runs changes nothing of what it runs", async () => {
    const folder = writeWiper();
    // This version waits for a gate before reading its helper, so the test can edit the helper mid-run.
    fs.writeFileSync(path.join(folder, "run.sh"), `#!/bin/bash\nwhile [ ! -e "$MARKER_DIR/gate12" ]; do sleep 0.02; done\n${goodScript("approved")}\n`, { mode: 0o755 });
    const call = await approvedCall(12);
    await waitForStatus(call.id, ["running"]);
    await expect.poll(async () => (await db().call.findUniqueOrThrow({ where: { id: call.id } })).startedAt).not.toBeNull();
    fs.writeFileSync(path.join(folder, "lib.sh"), "helper-evil\n");
    fs.writeFileSync(path.join(markers, "gate12"), "");
    expect(await waitForStatus(call.id, ["succeeded", "failed", "expired"])).toBe("succeeded");
    expect(lines(path.join(markers, "runs")).at(-1)).toBe("approved helper-v1");
  });
});
