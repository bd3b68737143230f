/**
 * One owner for the call lifecycle (issue 9 point 5): every status change goes through
 * lib/server/calls/call-transitions.ts — a table of allowed transitions, a compare-and-set and the
 * audit row in the same transaction — approvals import calls and never the reverse, and only the skills
 * adapter (call-plan.ts) reads skill folders.
 */
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { CALL_TRANSITIONS, IllegalTransitionError, insertCall, transitionCall } from "@/lib/server/calls/call-transitions";
import { db } from "@/lib/server/db";
import type { CallStatus } from "@/lib/types/call";
import { setUpTestConsole } from "../helpers/test-console";

const ROOT = path.resolve(__dirname, "../..");

beforeAll(async () => {
  await setUpTestConsole();
});

async function queuedCall(): Promise<string> {
  const id = randomUUID();
  await insertCall({ id, skill: "lifecycle", requestedBy: "tester@console.local", args: "{}" }, "queued", [{ action: "call.requested", actor: "tester@console.local", callId: id, skill: "lifecycle" }]);
  return id;
}

function claim(callId: string, worker: string) {
  return transitionCall({ callId, from: "queued", to: "running", changes: { workerName: worker }, audit: { action: "call.claimed", actor: "system", callId, details: { worker } } });
}

describe("transitionCall", () => {
  it("refuses what the table does not allow, before touching the database", async () => {
    const id = await queuedCall();
    const ended: CallStatus[] = ["succeeded", "failed", "timed_out", "cancelled", "denied", "expired", "interrupted"];
    for (const from of ended) expect(CALL_TRANSITIONS[from]).toEqual([]);
    await expect(transitionCall({ callId: id, from: "succeeded", to: "running", audit: { action: "call.claimed", actor: "system" } })).rejects.toThrow(
      new IllegalTransitionError("a call may not go from succeeded to running"),
    );
    await expect(transitionCall({ callId: id, from: "queued", to: "running", audit: null })).rejects.toThrow("a transition without its own audit entry must run in the caller's transaction");
    await expect(insertCall({ id: randomUUID(), skill: "lifecycle", requestedBy: "t", args: "{}" }, "running", [])).rejects.toThrow("a call may not be created running");
    expect((await db().call.findUniqueOrThrow({ where: { id } })).status).toBe("queued");
  });

  it("is a compare-and-set: of concurrent claims exactly one wins, and only the winner's audit row is written", async () => {
    const id = await queuedCall();
    const results = await Promise.all(Array.from({ length: 8 }, (_, index) => claim(id, `w${index}`)));
    const winners = results.filter((row) => row !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ id, status: "running" });
    const claims = await db().auditEvent.findMany({ where: { callId: id, action: "call.claimed" } });
    expect(claims).toHaveLength(1);
    expect(JSON.parse(claims[0]!.details)).toEqual({ worker: winners[0]!.workerName });
    // Once running, the same claim finds nothing to change and writes nothing.
    expect(await claim(id, "late")).toBeNull();
    expect(await db().auditEvent.count({ where: { callId: id, action: "call.claimed" } })).toBe(1);
  });
});

/** Every .ts file under `dir` (tests excluded). */
function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sources(relative));
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) files.push(relative);
  }
  return files;
}

describe("the lifecycle's boundaries (read from the sources)", () => {
  const all = [...sources("lib"), ...sources("app")];
  const text = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

  it("no module of lib/server/calls imports the approvals", () => {
    const offenders = sources("lib/server/calls").filter((file) => /from\s+["'](\.\.\/approvals|@\/lib\/server\/approvals)/.test(text(file)));
    expect(offenders).toEqual([]);
  });

  it("no module writes a call's status but call-transitions.ts (through call-sql.ts)", () => {
    // A status in the SET clause (not in the WHERE of a compare-and-set), or in a Prisma update's data.
    const setsStatus = /UPDATE\s+"Call"\s+SET(?:(?!WHERE)[\s\S])*?"status"\s*=/;
    const prismaSetsStatus = /\.call\.(update|updateMany|upsert)\(\{[\s\S]*?data:\s*\{[^}]*\bstatus\s*:/;
    const writesStatus = all.filter((file) => setsStatus.test(text(file)) || prismaSetsStatus.test(text(file)));
    expect(writesStatus).toEqual([]);
    // Other modules may update a running call's other columns (a worker's timeline report), never its status.
    const statusUpdates = all.filter((file) => file !== "lib/server/calls/call-transitions.ts" && [...text(file).matchAll(/\bupdateCallSql\(([^;]*)\);/g)].some((call) => /\bstatus\b/.test(call[1]!)));
    expect(statusUpdates).toEqual([]);
    expect(text("lib/server/calls/call-transitions.ts")).toMatch(/updateCallSql\(writer, change\.callId, from, \{ \.\.\.\(change\.changes \?\? \{\}\), status: change\.to \}/);
  });

  it("only the skills adapter reads skill folders", () => {
    const readers = all.filter((file) => /\breadSkillFolder\(/.test(text(file)));
    // Packs read a whole pack's folder with the same bounded reader (staging, the installed copy's
    // check), never a skill's folder to plan a call.
    expect(readers.sort()).toEqual(["lib/server/packs/pack-tree.ts", "lib/server/skills/call-plan.ts", "lib/server/skills/skill-folder.ts"]);
  });
});
