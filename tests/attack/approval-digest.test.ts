import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { approvalOf, auditActions, createPersonaRow, errorOf, requestCall, requestWaitingCall, sign, waitForStatus } from "../api/approvals-fixtures";

// The approval is bound to a digest of what the call runs; any change between request and signature,
// or between the second signature and the spawn, voids it for good (DESIGN.md "Dual-sign rules").

let testConsole: TestConsole;
let markerDir: string;
let requester: TestPerson;
let approverA: TestPerson;
let approverB: TestPerson;

const SCRIPT = 'echo run >> "$MARKER_DIR/wiper.runs"; echo \'{"wiped": true}\'';

function runs(): number {
  const file = path.join(markerDir, "wiper.runs");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

function writeWiper(manifest: Record<string, unknown> = {}, script = SCRIPT): void {
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"], ...manifest }, script);
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "", SKILL_MAX_CONCURRENT_CALLS: "1" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  writeWiper();
  writeSkill(testConsole.root, "blocker", { name: "blocker", env_allow: ["MARKER_DIR"] }, 'while [ ! -e "$MARKER_DIR/release" ]; do sleep 0.02; done; echo "{}"');
  await createPersonaRow("dual", "dual-sign-required");
  requester = await createPerson("approver");
  approverA = await createPerson("approver");
  approverB = await createPerson("approver");
});

describe("the approval digest", () => {
  it("voids the approval for good when the entry file changes between the request and a signature", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    expect((await sign(approvalId!, approverA.headers)).status).toBe(200);
    writeWiper({}, `${SCRIPT}\necho extra >&2`);
    try {
      const response = await sign(approvalId!, approverB.headers);
      expect(response.status).toBe(409);
      const error = await errorOf(response);
      expect(error.code).toBe("conflict");
      expect(error.message).toMatch(new RegExp(`^approval ${approvalId} is void: run.sh changed since the call was requested \\(digest [0-9a-f]{12}… is now [0-9a-f]{12}…\\)$`));
      const reason = error.message.replace(`approval ${approvalId} is void: `, "");
      expect(await db().approval.findUniqueOrThrow({ where: { id: approvalId! } })).toMatchObject({ status: "void", reason, decidedBy: "system" });
      expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "expired", error: `approval void: ${reason}` });
      // Void is for good: restoring the file does not bring it back.
      writeWiper();
      const again = await sign(approvalId!, approverB.headers);
      expect(again.status).toBe(409);
      expect(await errorOf(again)).toEqual({ code: "conflict", message: `approval ${approvalId} is void, not pending` });
      expect(runs()).toBe(0);
      expect(await auditActions(call.id)).toEqual(["call.requested", "approval.requested", "approval.signed", "approval.void"]);
    } finally {
      writeWiper();
    }
  });

  it("voids it when the manifest changes (here its timeout), naming what changed", async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    writeWiper({ timeout_seconds: 5 });
    try {
      const response = await sign(approvalId!, approverA.headers);
      expect(response.status).toBe(409);
      const error = await errorOf(response);
      expect(error.code).toBe("conflict");
      expect(error.message).toMatch(new RegExp(`^approval ${approvalId} is void: the timeout changed, skill\\.json changed since the call was requested \\(digest [0-9a-f]{12}… is now [0-9a-f]{12}…\\)$`));
      // What the void recorded: the approval void (by the system, unsigned), the call ended expired.
      const reason = error.message.replace(`approval ${approvalId} is void: `, "");
      expect(await db().approval.findUniqueOrThrow({ where: { id: approvalId! } })).toMatchObject({ status: "void", reason, decidedBy: "system" });
      expect(await db().approvalSignature.count({ where: { approvalId: approvalId! } })).toBe(0);
      expect(await db().call.findUniqueOrThrow({ where: { id: call.id } })).toMatchObject({ status: "expired", error: `approval void: ${reason}` });
      expect(await auditActions(call.id)).toEqual(["call.requested", "approval.requested", "approval.void"]);
    } finally {
      writeWiper();
    }
  });

  it("rechecks just before spawning: a change after the second signature ends the call expired and spawns nothing", async () => {
    fs.rmSync(path.join(markerDir, "release"), { force: true });
    // The only slot is taken, so the approved call waits in the queue while the entry changes.
    const blocker = (await (await requestCall("blocker", { args: {}, wait: false })).json()) as { call: Call };
    await waitForStatus(blocker.call.id, ["running"]);
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    expect((await sign(approvalId!, approverA.headers)).status).toBe(200);
    const second = await sign(approvalId!, approverB.headers);
    expect(await approvalOf(second)).toMatchObject({ status: "approved" });
    expect((await db().call.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("queued");
    writeWiper({}, `${SCRIPT}\n# swapped after approval`);
    try {
      fs.writeFileSync(path.join(markerDir, "release"), "");
      expect(await waitForStatus(call.id, ["expired", "succeeded", "failed"])).toBe("expired");
      const row = await db().call.findUniqueOrThrow({ where: { id: call.id } });
      expect(row.error).toMatch(/^run\.sh changed since the call was requested \(digest [0-9a-f]{12}… is now [0-9a-f]{12}…\)$/);
      expect(row.startedAt).toBeNull();
      expect(await db().approval.findUniqueOrThrow({ where: { id: approvalId! } })).toMatchObject({ status: "void", reason: row.error });
      expect(runs()).toBe(0);
      const actions = await auditActions(call.id);
      expect(actions).toContain("approval.void");
      expect(actions).not.toContain("call.started");
      const events = await db().callEvent.findMany({ where: { callId: call.id } });
      expect(events.map((event) => event.line)).toEqual([`not started: ${row.error}`]);
    } finally {
      writeWiper();
    }
  });
});
