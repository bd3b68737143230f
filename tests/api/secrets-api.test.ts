/**
 * Skill secrets (DESIGN.md "Skill secrets", issue 12 point 2), through the HTTP routes, a real worker
 * and real child processes: admin-only; values refused clearly and never served, logged or stored in
 * clear; a native skill that needs a secret is unavailable until it is given it (the console's own
 * environment never counts nor reaches it), then really receives it; its value is masked on the
 * timeline, the result, the error, the event stream, the timeline download and the audit trail; a
 * change voids pending approvals of the skills it feeds.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/v1/audit/route";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as eventsRoute from "@/app/api/v1/calls/[id]/events/route";
import * as timelineRoute from "@/app/api/v1/calls/[id]/timeline.txt/route";
import * as secretRoute from "@/app/api/v1/secrets/[name]/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import * as skillRoute from "@/app/api/v1/skills/[name]/route";
import { db } from "@/lib/server/db";
import { keyIdOf, sealSecret } from "@/lib/server/secrets/secret-box";
import { SECRET_MASK } from "@/lib/server/secrets/secret-masking";
import type { Call, CallWithEvents } from "@/lib/types/call";
import type { SecretInfo } from "@/lib/types/secret";
import type { Skill } from "@/lib/types/skill";
import { invoke, readEvents } from "../helpers/route-client";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { startTestWorker } from "../helpers/test-worker";
import { createPersonaRow, createToken, errorOf, requestCall, requestWaitingCall, sign, waitForStatus } from "./approvals-fixtures";

/** The secret's value: long enough to be unmistakable in any text it leaks into. */
const VALUE = "sk-test-9f3c1a7e5b2d4c6e8a0f";
/** What the console's own environment holds under the same name: must never reach the skill nor make it available. */
const CONSOLE_VALUE = "console-env-value-must-not-leak";

let testConsole: TestConsole;
let operator: TestPerson;
let approver: TestPerson;

const post = (body: unknown, as: "admin" | Record<string, string> = "admin") => invoke(secretsRoute.POST, "/api/v1/secrets", { body, as });
const put = (name: string, body: unknown) => invoke(secretRoute.PUT, `/api/v1/secrets/${name}`, { method: "PUT", body, params: { name } });
const remove = (name: string) => invoke(secretRoute.DELETE, `/api/v1/secrets/${name}`, { method: "DELETE", params: { name } });
const skillOf = async (name: string) => ((await (await invoke(skillRoute.GET, `/api/v1/skills/${name}`, { params: { name } })).json()) as { skill: Skill }).skill;

/** Runs a call to its end and returns it with its timeline. */
async function runToEnd(skill: string, args: Record<string, unknown>): Promise<CallWithEvents> {
  const response = await requestCall(skill, { args, wait: true });
  expect(response.status).toBe(200);
  const { call } = (await response.json()) as { call: Call };
  const full = await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } });
  return ((await full.json()) as { call: CallWithEvents }).call;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SECRETS_TEST_KEY: "" });
  process.env.SECRETS_TEST_KEY = CONSOLE_VALUE;
  writeNativeSkill(testConsole.nativeRoot, "ai", "needs-key", {
    frontmatter: "name: needs-key\ndescription: calls an API with a key\nclass: safe\nenv_allow: [SECRETS_TEST_KEY]\nmetadata:\n  openclaw:\n    requires:\n      env: [SECRETS_TEST_KEY]",
    files: {
      "scripts/show.sh": '#!/bin/bash\necho "key is $SECRETS_TEST_KEY" >&2\nprintf \'%s\\n\' "$SECRETS_TEST_KEY"\n',
      "scripts/fail.sh": '#!/bin/bash\necho "cannot use $SECRETS_TEST_KEY" >&2\nexit 4\n',
    },
  });
  writeSkill(testConsole.root, "uses_key", { name: "uses_key", env_allow: ["SECRETS_TEST_KEY"] }, 'echo "token=$SECRETS_TEST_KEY" >&2; printf \'{"seen": "%s"}\' "$SECRETS_TEST_KEY"');
  writeSkill(testConsole.root, "bad_output", { name: "bad_output" }, 'echo "not json: $SECRETS_TEST_KEY"');
  writeSkill(testConsole.root, "wipe_with_key", { name: "wipe_with_key", class: "dangerous" }, 'echo "{}"');
  await createPersonaRow("dual-secrets", "dual-sign-required");
  operator = await createPerson("operator");
  approver = await createPerson("approver");
});

describe("the secrets API", () => {
  it("is for admins in person: 403 for an operator and for an agent's token", async () => {
    expect((await invoke(secretsRoute.GET, "/api/v1/secrets", { as: operator.headers })).status).toBe(403);
    const refused = await post({ name: "SOME_KEY", value: VALUE, skills: [] }, operator.headers);
    expect(refused.status).toBe(403);
    const agent = await createToken("dual-secrets", "admin");
    expect((await post({ name: "SOME_KEY", value: VALUE, skills: [] }, agent)).status).toBe(403);
    expect(await db().secret.count()).toBe(0);
  });

  it("refuses bad names and values with a message that never quotes the value", async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ name: "1KEY", value: VALUE, skills: [] }, 400, "a secret's name is an environment variable's name: letters, digits and _, not starting with a digit, at most 128 characters (got \"1KEY\")"],
      [{ name: "LD_PRELOAD", value: VALUE, skills: [] }, 400, "LD_PRELOAD cannot be a secret: it is one of the console's own secrets or changes how programs run, not what they are given"],
      [{ name: "PPID", value: VALUE, skills: [] }, 400, "PPID cannot be a secret: the shell that puts a call in its cgroups sets PPID itself, so a skill would never see the value"],
      [{ name: "OPTIND", value: VALUE, skills: [] }, 400, "OPTIND cannot be a secret: the shell that puts a call in its cgroups sets OPTIND itself, so a skill would never see the value"],
      [{ name: "CONSOLE_SECRET_KEY", value: VALUE, skills: [] }, 400, "CONSOLE_SECRET_KEY cannot be a secret: it is one of the console's own secrets or changes how programs run, not what they are given"],
      [{ name: "SHORT_KEY", value: "abcdefg", skills: [] }, 400, "the value of SHORT_KEY is shorter than 8 characters: too short to be masked in what skills print, and easy to guess"],
      [{ name: "SPACED_KEY", value: `${VALUE}\n`, skills: [] }, 400, "the value of SPACED_KEY begins or ends with whitespace (a pasted newline or space?): a skill that trims it would print the value unmasked"],
      [{ name: "NUL_KEY", value: "abc\u0000defgh", skills: [] }, 400, "the value of NUL_KEY holds a NUL character, which no environment variable can"],
      [{ name: "BAD_SKILL", value: VALUE, skills: ["a\nb"] }, 400, '"a\\nb" is not a skill name'],
      [{ name: "GHOST_KEY", value: VALUE, skills: ["no-such-skill"] }, 400, 'no skill named "no-such-skill" is loaded: a secret is given only to skills the console lists, each in the folder it has now'],
    ];
    for (const [body, status, message] of cases) {
      const response = await post(body);
      expect(response.status).toBe(status);
      const error = await errorOf(response);
      expect(error.message).toBe(message);
      expect(JSON.stringify(error)).not.toContain(VALUE);
    }
    const extra = await post({ name: "EXTRA_KEY", value: VALUE, skills: [], note: "x" });
    expect(extra.status).toBe(400);
    expect(await db().secret.count()).toBe(0);
  });
});

describe("a native skill that needs a secret", () => {
  it("is unavailable until the secret is given to it, whatever the console's environment holds, and cannot be called", async () => {
    const skill = await skillOf("needs-key");
    expect(skill).toMatchObject({
      available: false,
      unavailableReason: "needs secret SECRETS_TEST_KEY: no secret of that name is given to this skill (Secrets page)",
      secretsNeeded: ["SECRETS_TEST_KEY"],
      secretsGiven: [],
    });
    const refused = await requestCall("needs-key", { args: { script: "show.sh" } });
    expect(refused.status).toBe(409);
    expect((await errorOf(refused)).message).toBe("needs-key is unavailable: needs secret SECRETS_TEST_KEY: no secret of that name is given to this skill (Secrets page)");
  });

  it("once given it, runs with the secret's value (never the console's) and masks it everywhere it would show", async () => {
    const created = await post({ name: "SECRETS_TEST_KEY", value: VALUE, skills: ["needs-key", "uses_key", "bad_output"] });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: SecretInfo };
    expect(Object.keys(secret).sort()).toEqual(["createdAt", "createdBy", "fingerprint", "name", "readable", "skills", "updatedAt", "updatedBy"]);
    expect(secret.readable).toBe(true);
    expect(secret).toMatchObject({ name: "SECRETS_TEST_KEY", skills: ["bad_output", "needs-key", "uses_key"], createdBy: "admin@console.local", updatedBy: "admin@console.local" });
    expect(secret.fingerprint).toMatch(/^hmac-sha256:[0-9a-f]{16}$/);
    // Sealed at rest: neither the value nor its base64 is in the row.
    const row = await db().secret.findUniqueOrThrow({ where: { name: "SECRETS_TEST_KEY" } });
    expect(JSON.stringify(row)).not.toContain(VALUE);
    expect(JSON.stringify(row)).not.toContain(Buffer.from(VALUE).toString("base64").slice(0, 20));
    // The list shows the same, never a value.
    const listed = (await (await invoke(secretsRoute.GET, "/api/v1/secrets")).json()) as { secrets: SecretInfo[] };
    expect(listed.secrets).toEqual([secret]);
    expect(await skillOf("needs-key")).toMatchObject({ available: true, unavailableReason: null, secretsGiven: ["SECRETS_TEST_KEY"] });

    const shown = await runToEnd("needs-key", { script: "show.sh" });
    expect(shown.status).toBe("succeeded");
    expect(shown.events.filter((event) => event.stream === "stderr").map((event) => event.line)).toEqual([`key is ${SECRET_MASK}`]);
    expect(shown.result).toEqual({ stdout: `${SECRET_MASK}\n` });
    const failed = await runToEnd("needs-key", { script: "fail.sh" });
    expect(failed.status).toBe("failed");
    expect(failed.events.filter((event) => event.stream === "stderr").map((event) => event.line)).toEqual([`cannot use ${SECRET_MASK}`]);
    // A subprocess skill given it gets the secret over the console's variable its env_allow names.
    const used = await runToEnd("uses_key", {});
    expect(used.result).toEqual({ seen: SECRET_MASK });
    expect(used.events.filter((event) => event.stream === "stderr").map((event) => event.line)).toEqual([`token=${SECRET_MASK}`]);

    // An error that quotes what the skill wrote quotes it masked.
    const badOutput = await runToEnd("bad_output", {});
    expect(badOutput.status).toBe("failed");
    expect(badOutput.error).toContain(`not json: ${SECRET_MASK}`);

    // The value reaches no stored text, no answer, no stream and no download: the console never had it back.
    for (const call of [shown, failed, used, badOutput]) {
      const answer = await (await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } })).text();
      const download = await (await invoke(timelineRoute.GET, `/api/v1/calls/${call.id}/timeline.txt`, { params: { id: call.id } })).text();
      const stream = readEvents(await invoke(eventsRoute.GET, `/api/v1/calls/${call.id}/events`, { params: { id: call.id } }));
      const streamed: string[] = [];
      for (let event = await stream.next(); event; event = await stream.next()) streamed.push(event.data);
      for (const text of [answer, download, streamed.join("\n")]) {
        expect(text).toContain(SECRET_MASK);
        expect(text).not.toContain(VALUE);
        expect(text).not.toContain(CONSOLE_VALUE);
      }
    }
    const storedText = JSON.stringify([await db().call.findMany(), await db().callEvent.findMany(), await db().auditEvent.findMany()]);
    expect(storedText).not.toContain(VALUE);
    expect(storedText).not.toContain(CONSOLE_VALUE);
    const audit = await (await invoke(auditRoute.GET, "/api/v1/audit?limit=500")).text();
    expect(audit).toContain("secret.created");
    expect(audit).not.toContain(VALUE);
  });

  it("becomes unavailable again when the secret is deleted, and its next call is refused", async () => {
    const deleted = await remove("SECRETS_TEST_KEY");
    expect(deleted.status).toBe(200);
    expect(await skillOf("needs-key")).toMatchObject({ available: false, secretsGiven: [] });
    expect((await requestCall("needs-key", { args: { script: "show.sh" } })).status).toBe(409);
    expect((await remove("SECRETS_TEST_KEY")).status).toBe(404);
  });
});

describe("a secret change", () => {
  it("voids the pending approvals of the skills it feeds, and only theirs", async () => {
    expect((await post({ name: "WIPE_TOKEN", value: "first-value-1234", skills: ["wipe_with_key"] })).status).toBe(201);
    const fed = await requestWaitingCall("wipe_with_key", "dual-secrets", operator.headers);
    const other = await requestWaitingCall("wipe_with_key", "dual-secrets", approver.headers);
    // Changing only who it is given to, without touching wipe_with_key, voids nothing.
    expect((await put("WIPE_TOKEN", { skills: ["wipe_with_key", "uses_key"] })).status).toBe(200);
    expect((await db().approval.findUniqueOrThrow({ where: { id: fed.approvalId! } })).status).toBe("pending");
    const changed = await put("WIPE_TOKEN", { value: "second-value-5678" });
    expect(changed.status).toBe(200);
    for (const { call, approvalId } of [fed, other]) {
      const approval = await db().approval.findUniqueOrThrow({ where: { id: approvalId! } });
      expect(approval).toMatchObject({ status: "void", reason: "secret WIPE_TOKEN was changed after the call was requested: what the approvers were shown is no longer what would run", decidedBy: "system" });
      expect(await waitForStatus(call.id, ["expired"])).toBe("expired");
    }
    const entries = await db().auditEvent.findMany({ where: { action: "secret.updated" }, orderBy: { id: "asc" } });
    expect(entries.map((entry) => JSON.parse(entry.details) as Record<string, unknown>).map((details) => [details.changed, [...(details.voidedApprovals as string[])].sort()])).toEqual([
      [["skills"], []],
      [["value"], [fed.approvalId, other.approvalId].sort()],
    ]);
    expect(JSON.stringify(entries)).not.toContain("second-value-5678");
    expect((await put("NO_SUCH_SECRET", { value: "whatever-1234" })).status).toBe(404);
  });

  it("made after the second signature, before a worker claims the call, expires it and voids the approval: it never runs with a value nobody approved", { timeout: 30_000 }, async () => {
    // The calls name a target no worker answers to yet, so they wait, approved, until it starts.
    const request = async () => {
      const response = await requestCall("wipe_with_key", { args: {}, persona: "dual-secrets", target: "parked" }, operator.headers);
      expect(response.status).toBe(202);
      const { call } = (await response.json()) as { call: Call };
      const { id: approvalId } = await db().approval.findUniqueOrThrow({ where: { callId: call.id } });
      for (const signer of [approver.headers, "admin" as const]) expect((await sign(approvalId, signer)).status).toBe(200);
      expect(await waitForStatus(call.id, ["queued"])).toBe("queued");
      return { call, approvalId };
    };
    const changed = await request();
    expect(JSON.parse((await db().approval.findUniqueOrThrow({ where: { id: changed.approvalId } })).secrets!)).toEqual({ WIPE_TOKEN: expect.stringMatching(/^hmac-sha256:/) });
    expect((await put("WIPE_TOKEN", { value: "third-value-9012" })).status).toBe(200);
    const unchanged = await request();
    await startTestWorker({ WORKER_NAME: "parked" });

    expect(await waitForStatus(changed.call.id, ["expired", "succeeded", "failed"])).toBe("expired");
    const expired = await db().call.findUniqueOrThrow({ where: { id: changed.call.id } });
    const reason = "the skill's secrets changed after the call was requested: WIPE_TOKEN (another value); what the approvers signed for is no longer what would run";
    expect(expired).toMatchObject({ error: reason, startedAt: null });
    expect(await db().approval.findUniqueOrThrow({ where: { id: changed.approvalId } })).toMatchObject({ status: "void", reason });
    // Approved under the value it runs with: runs.
    expect(await waitForStatus(unchanged.call.id, ["expired", "succeeded", "failed"])).toBe("succeeded");
    expect((await db().approval.findUniqueOrThrow({ where: { id: unchanged.approvalId } })).status).toBe("approved");
  });
});

describe("a secret sealed with another key", () => {
  it("is listed as unreadable, and a call that needs it fails naming it and the keys, running nothing", async () => {
    const otherKey = Buffer.alloc(32, 3);
    expect((await post({ name: "SECRETS_TEST_KEY", value: VALUE, skills: ["needs-key"] })).status).toBe(201);
    await db().secret.update({ where: { name: "SECRETS_TEST_KEY" }, data: sealSecret(otherKey, "SECRETS_TEST_KEY", VALUE) });
    const listed = (await (await invoke(secretsRoute.GET, "/api/v1/secrets")).json()) as { secrets: SecretInfo[] };
    expect(listed.secrets.find((secret) => secret.name === "SECRETS_TEST_KEY")!.readable).toBe(false);
    const response = await requestCall("needs-key", { args: { script: "show.sh" }, wait: true });
    expect(response.status).toBe(200);
    const { call } = (await response.json()) as { call: Call };
    expect(call.status).toBe("failed");
    expect(call.error).toMatch(new RegExp(`^secret SECRETS_TEST_KEY was sealed with another key \\(${keyIdOf(otherKey)}; this console's is [0-9a-f]{16}\\): set CONSOLE_SECRET_KEY to that key, or set the secret again$`));
    const full = (await (await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } })).json()) as { call: CallWithEvents };
    expect(full.call.events.filter((event) => event.stream === "stderr")).toEqual([]);
  });
});

describe("a secret given to a skill", () => {
  it("is given to it in its folder: a skill that takes the name from another folder does not get it until an admin names it again", { timeout: 30_000 }, async () => {
    writeSkill(testConsole.root, "moving_skill", { name: "moving_skill", env_allow: ["MOVE_TOKEN"] }, 'printf \'{"seen": "%s"}\' "$MOVE_TOKEN"');
    await reloadTestConsole();
    expect((await post({ name: "MOVE_TOKEN", value: "move-token-value-5678", skills: ["moving_skill"] })).status).toBe(201);
    expect((await runToEnd("moving_skill", {})).result).toEqual({ seen: SECRET_MASK });
    // The folder is gone; a skill of the same name now loads from another folder.
    fs.rmSync(path.join(testConsole.root, "moving_skill"), { recursive: true });
    writeSkill(testConsole.root, "impostor", { name: "moving_skill", env_allow: ["MOVE_TOKEN"] }, 'printf \'{"seen": "%s"}\' "$MOVE_TOKEN"');
    await reloadTestConsole();
    expect(await skillOf("moving_skill")).toMatchObject({ secretsGiven: [] });
    expect((await runToEnd("moving_skill", {})).result).toEqual({ seen: "" });
    // Named again, it is given to the skill where it lives now.
    expect((await put("MOVE_TOKEN", { skills: ["moving_skill"] })).status).toBe(200);
    expect(await skillOf("moving_skill")).toMatchObject({ secretsGiven: ["MOVE_TOKEN"] });
    expect((await runToEnd("moving_skill", {})).result).toEqual({ seen: SECRET_MASK });
  });
});
