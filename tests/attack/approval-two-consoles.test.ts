import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "@/lib/server/db";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, requestWaitingCall, sign, waitForStatus } from "../api/approvals-fixtures";

// Two console processes share one SQLite file (WAL) and both take sign requests for the same approval at
// the same moment: the compare-and-set transactions let exactly one of them start the call, once.

const PER_SIGNER = 8;
let testConsole: TestConsole;
let markerDir: string;
let requester: TestPerson;
let signers: TestPerson[];

function runCount(): number {
  const file = path.join(markerDir, "wiper.runs");
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

async function waitForFile(file: string, timeoutMs: number, child: { exited: boolean; output: string[] }): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (child.exited || Date.now() > deadline) throw new Error(`${file} did not appear; second console output:\n${child.output.join("")}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  markerDir = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markerDir);
  process.env.MARKER_DIR = markerDir;
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous", env_allow: ["MARKER_DIR"] }, 'echo "$$" >> "$MARKER_DIR/wiper.runs"; echo \'{"wiped": true}\'');
  await createPersonaRow("dual", "dual-sign-required");
  requester = await createPerson("approver");
  signers = [await createPerson("approver"), await createPerson("approver")];
});

describe("two console processes sharing one database file", () => {
  it("run the approved call exactly once when both take the signatures at the same moment", { timeout: 180_000 }, async () => {
    const { call, approvalId } = await requestWaitingCall("wiper", "dual", requester.headers);
    const syncDir = path.join(testConsole.dir, "sync");
    fs.mkdirSync(syncDir);
    // The child is a console of its own: same settings, none of this vitest worker's own variables, and
    // this file's engine only (a second project's child would sign too, with a database of its own).
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST"))) as NodeJS.ProcessEnv;
    Object.assign(env, {
      SECOND_CONSOLE_APPROVAL_ID: approvalId!,
      SECOND_CONSOLE_CALL_ID: call.id,
      SECOND_CONSOLE_SIGNERS: JSON.stringify(signers.map((person) => person.headers)),
      SECOND_CONSOLE_SYNC_DIR: syncDir,
      SECOND_CONSOLE_REQUESTS_PER_SIGNER: String(PER_SIGNER),
    });
    const child = { exited: false, code: null as number | null, output: [] as string[] };
    const processHandle = spawn(process.execPath, [path.resolve("node_modules/vitest/vitest.mjs"), "run", "--project", inject("databaseKind"), "tests/attack/approval-second-console.test.ts"], { env, cwd: process.cwd() });
    processHandle.stdout.on("data", (chunk: Buffer) => child.output.push(chunk.toString()));
    processHandle.stderr.on("data", (chunk: Buffer) => child.output.push(chunk.toString()));
    const exited = new Promise<void>((resolve) => processHandle.on("exit", (code) => {
      child.exited = true;
      child.code = code;
      resolve();
    }));

    await waitForFile(path.join(syncDir, "child-ready"), 120_000, child);
    const startAt = Date.now() + 300;
    fs.writeFileSync(path.join(syncDir, "go"), String(startAt));
    while (Date.now() < startAt) await new Promise((resolve) => setImmediate(resolve));
    const ours = await Promise.all(
      signers.flatMap((person, signer) =>
        Array.from({ length: PER_SIGNER }, async () => {
          const sentAt = Date.now();
          const response = await sign(approvalId!, person.headers);
          return { signer, status: response.status, body: (await response.json()) as { error?: { message: string } }, sentAt, answeredAt: Date.now() };
        }),
      ),
    );
    await exited;
    expect(child.code, child.output.join("")).toBe(0);
    const theirs = JSON.parse(fs.readFileSync(path.join(syncDir, "child-results.json"), "utf8")) as typeof ours;
    expect(theirs).toHaveLength(2 * PER_SIGNER);

    // The two consoles' requests really overlapped in time.
    const window = (results: typeof ours) => [Math.min(...results.map((result) => result.sentAt)), Math.max(...results.map((result) => result.answeredAt))] as const;
    const [ourStart, ourEnd] = window(ours);
    const [theirStart, theirEnd] = window(theirs);
    expect(Math.min(ourEnd, theirEnd)).toBeGreaterThan(Math.max(ourStart, theirStart));

    const all = [...ours, ...theirs];
    const winners = all.filter((result) => result.status === 200);
    expect(winners).toHaveLength(2);
    expect(new Set(winners.map((winner) => winner.signer))).toEqual(new Set([0, 1]));
    for (const refusal of all.filter((result) => result.status !== 200)) {
      expect(refusal.status).toBe(409);
      expect([`you already signed approval ${approvalId}`, `approval ${approvalId} is approved, not pending`]).toContain(refusal.body.error?.message);
    }
    expect(await waitForStatus(call.id, ["succeeded", "failed"])).toBe("succeeded");
    expect(runCount()).toBe(1);
    console.log(`winners: ${ours.filter((r) => r.status === 200).length} in this console, ${theirs.filter((r) => r.status === 200).length} in the second`);
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "call.started" } })).toBe(1);
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "approval.signed" } })).toBe(2);
    expect(await db().approvalSignature.count({ where: { approvalId: approvalId! } })).toBe(2);
    // Which worker ran it is recorded with the start: one claim, one start.
    expect(await db().auditEvent.count({ where: { callId: call.id, action: "call.claimed" } })).toBe(1);
    const started = await db().auditEvent.findFirstOrThrow({ where: { callId: call.id, action: "call.started" } });
    expect(JSON.parse(started.details)).toMatchObject({ worker: expect.any(String), workerId: expect.any(String), pid: expect.any(Number) });
  });
});
