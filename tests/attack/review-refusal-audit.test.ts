/**
 * An agent probing what its token may do leaves a trace: a call request the policy refuses (403, nothing
 * stored or started) is still a request, and the audit trail records it (issue 4 point 5: "an
 * append-only audit trail (who, what, when, digest) for requests, …") with who asked, the skill, the
 * persona and the policy's reason. Otherwise an agent could try every dangerous skill under every
 * persona and nobody reviewing the Audit page would ever know.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson } from "../helpers/test-people";
import { createPersonaRow, createToken, requestCall } from "../api/approvals-fixtures";

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "wiper", { name: "wiper", class: "dangerous" }, 'echo "{}"');
  await createPersonaRow("dual", "dual-sign-required");
});

describe("refused call requests", () => {
  it("are written to the audit trail with the actor, skill, persona and reason", async () => {
    const owner = await createPerson("operator");
    const agent = await createToken("default", owner.headers, "prober");
    const denied = await requestCall("wiper", { args: {} }, agent);
    expect(denied.status).toBe(403);
    const otherPersona = await requestCall("wiper", { args: {}, persona: "dual" }, agent);
    expect(otherPersona.status).toBe(403);
    expect(await db().call.count({ where: { skill: "wiper" } })).toBe(0);
    const entries = await db().auditEvent.findMany({ where: { action: "call.refused" }, orderBy: { id: "asc" } });
    expect(entries.map((entry) => [entry.actor, entry.skill])).toEqual([
      [`token:prober (${owner.email})`, "wiper"],
      [`token:prober (${owner.email})`, "wiper"],
    ]);
    expect(JSON.parse(entries[0]!.details)).toMatchObject({ persona: "default", reason: expect.stringMatching(/read-only/) });
    expect(JSON.parse(entries[1]!.details)).toMatchObject({ persona: "dual", reason: expect.stringMatching(/acts as persona default/) });
  });
});
