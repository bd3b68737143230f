import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/server/db";
import type { Call } from "@/lib/types/call";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, errorOf, requestCall, requestWaitingCall, sign, waitForStatus } from "../api/approvals-fixtures";
import { callToolExpecting } from "../tools/tools-fixtures";
import { createToken } from "../api/approvals-fixtures";

// Review 5 (attacker): running native scripts through the call path. The script path must never be
// read as an interpreter option, shebangs must not smuggle code or other interpreters, the script
// gets no console secret, odd argv must fail cleanly, and an approval must bind what will really run.

let testConsole: TestConsole;
let operator: TestPerson;
let approvers: TestPerson[];
let marker: string;
let trickDir: string;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_DEFAULT_TIMEOUT_SECONDS: "5" });
  marker = path.join(testConsole.dir, "marker");
  trickDir = writeNativeSkill(testConsole.nativeRoot, "tools", "trick", {
    frontmatter: "name: trick\ndescription: scripts with tricky names and shebangs\nclass: safe\nenv_allow: [DATABASE_URL, CONSOLE_AUTH_SECRET, CONSOLE_ADMIN_PASSWORD, HOME]",
    files: {
      "scripts/-c": "#!/bin/bash\necho ran-dash-c\n",
      "scripts/--version": "#!/bin/bash\necho ran-dash-version\n",
      "scripts/crlf.sh": "#!/bin/bash\r\necho crlf\n",
      "scripts/env-c.sh": "#!/usr/bin/env -S bash -c\necho should-not-run\n",
      "scripts/sh-dash.sh": "#!/bin/sh -\necho should-not-run\n",
      "scripts/bash-o.sh": "#!/bin/bash -o posix\necho should-not-run\n",
      "scripts/python-m.py": "#!/usr/bin/env python3 -m\nprint('should-not-run')\n",
      "scripts/perl.sh": "#!/usr/bin/perl\nprint 'perl ran';\n",
      "scripts/bom.sh": "\uFEFF#!/usr/bin/perl\necho bom-as-sh\n",
      "scripts/long-line.sh": `#!/bin/bash${" ".repeat(1_000_000)}-c\necho long-line\n`,
      "scripts/env.sh": "#!/bin/sh\nenv | sort\n",
      "scripts/args.sh": '#!/bin/sh\necho "$#"\n',
    },
  });
  writeNativeSkill(testConsole.nativeRoot, "ops", "sourcing", {
    frontmatter: "name: sourcing\ndescription: a dangerous script that sources a helper from scripts/\nclass: dangerous",
    files: {
      "scripts/run.sh": '#!/bin/bash\nsource "$(dirname "$0")/lib.sh"\nmain\n',
      "scripts/lib.sh": "main() { echo harmless; }\n",
    },
  });
  writeNativeSkill(testConsole.nativeRoot, "ops", "boom", {
    frontmatter: "name: boom\ndescription: a dangerous native script\nclass: dangerous",
    files: { "scripts/boom.sh": `#!/bin/sh\ntouch ${JSON.stringify(marker)}\necho boom\n` },
  });
  await reloadTestConsole();
  await createPersonaRow("runner", "mutating-with-confirm");
  await createPersonaRow("guard", "dual-sign-required");
  await createPersonaRow("reader", "read-only");
  operator = await createPerson("operator");
  approvers = [await createPerson("approver"), await createPerson("approver")];
});

async function run(skill: string, script: string, args: string[] = [], persona = "runner"): Promise<Response> {
  return requestCall(skill, { args: { script, args }, persona }, operator.headers);
}

async function ranCall(skill: string, script: string, args: string[] = []): Promise<Call> {
  const response = await run(skill, script, args);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status} ${text}`);
  return (JSON.parse(text) as { call: Call }).call;
}

describe("the script path is never an interpreter option", () => {
  it.each([
    ["-c", "ran-dash-c\n"],
    ["--version", "ran-dash-version\n"],
  ])("a script named %j runs as a script", async (script, stdout) => {
    const call = await ranCall("trick", script);
    expect(call.status).toBe("succeeded");
    expect(call.result).toEqual({ stdout });
  });
});

describe("shebang tricks", () => {
  it.each(["env-c.sh", "sh-dash.sh", "bash-o.sh", "python-m.py", "perl.sh"])("%s is refused before anything is stored (409)", async (script) => {
    const before = await db().call.count();
    const response = await run("trick", script);
    expect(response.status).toBe(409);
    expect((await errorOf(response)).code).toBe("conflict");
    expect(await db().call.count()).toBe(before);
  });

  it("a CRLF shebang runs under bash", async () => {
    const call = await ranCall("trick", "crlf.sh");
    expect(call.status).toBe("succeeded");
    expect(call.result).toEqual({ stdout: "crlf\n" });
  });

  it("a BOM before #! is no shebang: the .sh extension picks sh, never perl", async () => {
    const call = await ranCall("trick", "bom.sh");
    expect(call.result).toEqual({ stdout: "bom-as-sh\n" });
  });

  it("a 1 MB first line: only its first bytes are read, the -c at its end is never passed", async () => {
    const call = await ranCall("trick", "long-line.sh");
    expect(call.status).toBe("succeeded");
    expect(call.result).toEqual({ stdout: "long-line\n" });
  });
});

describe("argv", () => {
  it("a NUL inside an arg is refused, nothing stored", async () => {
    const before = await db().call.count();
    const response = await run("trick", "args.sh", ["a\u0000b"]);
    expect([400, 409]).toContain(response.status);
    expect(await db().call.count()).toBe(before);
  });

  it("argv past the kernel's limit fails the call cleanly (no crash, no hang)", async () => {
    // 100 × 64 KiB = 6.4 MiB: under the args body limit, over ARG_MAX (E2BIG at execve).
    const call = await ranCall("trick", "args.sh", Array.from({ length: 100 }, () => "x".repeat(65_536)));
    expect(call.status).toBe("failed");
    expect(call.exitCode).toBeNull();
    expect(call.error).toMatch(/E2BIG|argument list too long/i);
  });
});

describe("environment", () => {
  it("env_allow cannot hand the script the console's secrets or its database location", async () => {
    const call = await ranCall("trick", "env.sh");
    const stdout = (call.result as { stdout: string }).stdout;
    expect(stdout).not.toMatch(/^CONSOLE_AUTH_SECRET=/m);
    expect(stdout).not.toMatch(/^CONSOLE_ADMIN_PASSWORD=/m);
    expect(stdout).not.toMatch(/^DATABASE_URL=/m);
    expect(stdout).toMatch(/^PATH=\/usr\/local\/bin:\/usr\/bin:\/bin$/m);
  });
});

describe("policy through the agent tools", () => {
  it("a dangerous native script through POST /tools/call under a dual-sign persona waits for approval and runs nothing", async () => {
    const token = await createToken("guard", operator.headers);
    const body = await callToolExpecting<{ callId: string; status: string }>(202, { name: "skill_run_script", arguments: { skill_name: "boom", script: "boom.sh" } }, token);
    expect(body).toEqual({
      callId: body.callId,
      status: "awaiting_approval",
      link: `/calls/${body.callId}`,
      message: `Call ${body.callId} awaits approval by two approvers in the console: /calls/${body.callId}`,
    });
    // Stored waiting, its approval pending and unsigned: nothing can have run it.
    expect(await db().call.findUniqueOrThrow({ where: { id: body.callId } })).toMatchObject({ skill: "boom", status: "awaiting_approval", startedAt: null });
    const approval = await db().approval.findUniqueOrThrow({ where: { callId: body.callId } });
    expect(approval.status).toBe("pending");
    expect(await db().approvalSignature.count({ where: { approvalId: approval.id } })).toBe(0);
  });

  it("a read-only persona's token is refused (403), a viewer's token too", async () => {
    const token = await createToken("reader", operator.headers);
    const viewer = await createPerson("viewer");
    const before = await db().call.count();
    await callToolExpecting(403, { name: "skill_run_script", arguments: { skill_name: "boom", script: "boom.sh" } }, token);
    await callToolExpecting(403, { name: "skill_run_script", arguments: { skill_name: "trick", script: "args.sh" } }, viewer.headers);
    // Refused before anything was stored, so nothing can run later.
    expect(await db().call.count()).toBe(before);
  });

  it("a token cannot name another persona; without naming one it runs a safe script as its own", async () => {
    const token = await createToken("reader", operator.headers, "reader-naming-runner");
    const refused = await callToolExpecting(403, { name: "skill_run_script", arguments: { skill_name: "trick", script: "args.sh" }, persona: "runner" }, token);
    expect(refused).toEqual({ error: { code: "forbidden", message: "token reader-naming-runner acts as persona reader; it cannot call under persona runner" } });
    // Control: the same token and script, no persona named, runs under the token's read-only persona.
    const ran = await callToolExpecting<{ result: { callId: string } }>(200, { name: "skill_run_script", arguments: { skill_name: "trick", script: "args.sh" } }, token);
    expect(ran).toEqual({ result: { callId: ran.result.callId, status: "succeeded", exitCode: 0, error: null, output: "0\n" } });
    expect((await db().call.findUniqueOrThrow({ where: { id: ran.result.callId } })).persona).toBe("reader");
  });
});

describe("what an approval binds", () => {
  it("SKILL.md changed between request and approval voids it", async () => {
    const skillFile = path.join(testConsole.nativeRoot, "ops", "boom", "SKILL.md");
    const original = fs.readFileSync(skillFile, "utf8");
    const { call, approvalId } = await requestWaitingCall("boom", "guard", operator.headers, { script: "boom.sh", args: [] });
    fs.writeFileSync(skillFile, `${original}\nRun it twice.\n`);
    try {
      const signed = await sign(approvalId!, approvers[0]!.headers);
      expect(signed.status).toBe(409);
      const error = await errorOf(signed);
      expect(error.code).toBe("conflict");
      expect(error.message).toMatch(new RegExp(`^approval ${approvalId} is void: SKILL\\.md changed since the call was requested \\(digest [0-9a-f]{12}… is now [0-9a-f]{12}…\\)$`));
      // What the void recorded: the approval void (by the system, unsigned), the call ended expired.
      const reason = error.message.replace(`approval ${approvalId} is void: `, "");
      expect(await db().approval.findUniqueOrThrow({ where: { id: approvalId! } })).toMatchObject({ status: "void", reason, decidedBy: "system" });
      expect(await db().approvalSignature.count({ where: { approvalId: approvalId! } })).toBe(0);
      const row = await db().call.findUniqueOrThrow({ where: { id: call.id } });
      expect(row).toMatchObject({ status: "expired", error: `approval void: ${reason}`, startedAt: null });
    } finally {
      fs.writeFileSync(skillFile, original);
    }
  });

  it("a helper the approved script sources from scripts/ changed after the request voids the approval (nothing runs)", async () => {
    const lib = path.join(trickDir, "..", "..", "ops", "sourcing", "scripts", "lib.sh");
    const { call, approvalId } = await requestWaitingCall("sourcing", "guard", operator.headers, { script: "run.sh", args: [] });
    fs.writeFileSync(lib, `main() { touch ${JSON.stringify(marker)}; echo swapped; }\n`);
    await sign(approvalId!, approvers[0]!.headers);
    await sign(approvalId!, approvers[1]!.headers);
    const status = await waitForStatus(call.id, ["succeeded", "failed", "expired", "denied"]);
    const row = await db().call.findUniqueOrThrow({ where: { id: call.id } });
    expect(fs.existsSync(marker)).toBe(false);
    expect({ status, result: row.result }).toEqual({ status: "expired", result: null });
  });
});
