import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import { db } from "@/lib/server/db";
import type { Call, CallEvent } from "@/lib/types/call";
import { invoke } from "../helpers/route-client";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, errorOf, requestCall, sign } from "../api/approvals-fixtures";

// Native scripts run through the same call path as subprocess skills (DESIGN.md "Native skills";
// seed 004 task 6): interpreter by shebang or extension from the allow-list, argv as given, a fixed
// PATH plus env_allow, stdout as text, stderr to the timeline, the class and the persona's policy.

let testConsole: TestConsole;
let operator: TestPerson;
let outside: string;

async function runScript(skill: string, script: string, args: string[] = [], persona = "runner"): Promise<Response> {
  return requestCall(skill, { args: { script, args }, persona }, operator.headers);
}

async function eventsOf(callId: string): Promise<string[]> {
  const response = await invoke(callRoute.GET, `/api/v1/calls/${callId}`, { params: { id: callId } });
  const { call } = (await response.json()) as { call: Call & { events: CallEvent[] } };
  return call.events.map((event) => `${event.stream}: ${event.line}`);
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ NATIVE_TEST_VISIBLE: "visible-value", NATIVE_TEST_HIDDEN: "hidden-value", CONSOLE_AUTH_SECRET: "test-secret-of-the-skill-console-suite-0123456789" });
  outside = path.join(testConsole.dir, "outside.sh");
  fs.writeFileSync(outside, "#!/bin/sh\necho escaped\n", { mode: 0o755 });
  writeNativeSkill(testConsole.nativeRoot, "tools", "echoer", {
    frontmatter: "name: echoer\ndescription: echoes its arguments\nclass: safe\nenv_allow: [NATIVE_TEST_VISIBLE, CONSOLE_AUTH_SECRET]\ntimeout_seconds: 2",
    files: {
      "scripts/args.sh": '#!/usr/bin/env bash\nset -euo pipefail\nfor a in "$@"; do printf "[%s]\\n" "$a"; done\necho "to stderr 1" >&2\necho "to stderr 2" >&2\n',
      "scripts/env.py": "import os, json\nprint(json.dumps(dict(sorted(os.environ.items()))))\n",
      "scripts/cwd.sh": "pwd\n",
      "scripts/fail.sh": "#!/bin/sh\necho partial\nexit 3\n",
      "scripts/perl.pl": "#!/usr/bin/perl\nprint 'hi';\n",
      "scripts/noext": "echo no shebang\n",
      "scripts/sleep.sh": "#!/bin/bash\nsleep 30 &\nsleep 30\n",
      "scripts/flags.sh": "#!/bin/bash -eu\necho \"flags: $-\"\n",
    },
  });
  writeNativeSkill(testConsole.nativeRoot, "tools", "undeclared", {
    frontmatter: "name: undeclared\ndescription: declares no class",
    files: { "scripts/touch.sh": "#!/bin/sh\necho touched\n" },
  });
  writeNativeSkill(testConsole.nativeRoot, "ops", "wipe-native", {
    frontmatter: "name: wipe-native\ndescription: destroys things\nclass: destructive",
    files: { "scripts/wipe.sh": "#!/bin/sh\necho wiped\n" },
  });
  const linked = writeNativeSkill(testConsole.nativeRoot, "tools", "linker", {
    frontmatter: "name: linker\ndescription: has a script that will be swapped\nclass: safe",
    files: { "scripts/ok.sh": "#!/bin/sh\necho ok\n" },
  });
  fs.symlinkSync(outside, path.join(linked, "scripts", "escape.sh"));
  await reloadTestConsole();
  await createPersonaRow("runner", "dual-sign-required");
  await createPersonaRow("reader", "read-only");
  await createPersonaRow("confirmer", "mutating-with-confirm");
  operator = await createPerson("operator");
});

describe("running a native skill's script", () => {
  it("passes args as argv exactly, returns stdout as text and puts stderr in the timeline", async () => {
    const response = await runScript("echoer", "args.sh", ["a b", "$(touch /tmp/pwned)", "", "--flag"]);
    expect(response.status).toBe(200);
    const { call } = (await response.json()) as { call: Call };
    expect(call.status).toBe("succeeded");
    expect(call.exitCode).toBe(0);
    expect(call.result).toEqual({ stdout: "[a b]\n[$(touch /tmp/pwned)]\n[]\n[--flag]\n" });
    const events = await eventsOf(call.id);
    expect(events[0]).toMatch(/^system: started \/usr\/bin\/bash scripts\/args\.sh \(pid \d+\)$/);
    expect(events.slice(1, 3)).toEqual(["stderr: to stderr 1", "stderr: to stderr 2"]);
  });

  it("gives the script only the fixed PATH and its env_allow names, never the console's secrets", async () => {
    const { call } = (await (await runScript("echoer", "env.py")).json()) as { call: Call };
    expect(call.status).toBe("succeeded");
    const env = JSON.parse((call.result as { stdout: string }).stdout) as Record<string, string>;
    // python3 itself may add LC_CTYPE when coercing the C locale; nothing else may appear.
    const { LC_CTYPE: _ctype, ...rest } = env;
    expect(rest).toEqual({ NATIVE_TEST_VISIBLE: "visible-value", PATH: "/usr/local/bin:/usr/bin:/bin" });
  });

  it("runs in the call's snapshot of the skill's folder (bound at the skill's own path in the sandbox)", async () => {
    const { call } = (await (await runScript("echoer", "cwd.sh")).json()) as { call: Call };
    expect(call.result).toEqual({ stdout: `${path.join(testConsole.dir, "worker-local", "snapshots", call.skillDigest!, "folder")}\n` });
  });

  it("keeps stdout of a script that exits non-zero and fails the call with the exit code", async () => {
    const { call } = (await (await runScript("echoer", "fail.sh")).json()) as { call: Call };
    expect(call).toMatchObject({ status: "failed", exitCode: 3, error: "exited with code 3", result: { stdout: "partial\n" } });
  });

  it("passes plain shebang options to the interpreter", async () => {
    const { call } = (await (await runScript("echoer", "flags.sh")).json()) as { call: Call };
    expect(call.status).toBe("succeeded");
    expect((call.result as { stdout: string }).stdout).toMatch(/^flags: [a-zA-Z]*e[a-zA-Z]*\n$/);
    expect((call.result as { stdout: string }).stdout).toContain("u");
  });

  it("refuses an interpreter outside the allow-list (409), storing nothing", async () => {
    const before = await db().call.count();
    const response = await runScript("echoer", "perl.pl");
    expect(response.status).toBe(409);
    expect(await errorOf(response)).toEqual({ code: "conflict", message: "echoer cannot run this call: interpreter perl (from the shebang) is not in the allow-list: bash, sh, python3" });
    expect(await db().call.count()).toBe(before);
  });

  it("refuses a script with neither shebang nor known extension", async () => {
    const response = await runScript("echoer", "noext");
    expect(response.status).toBe(409);
    expect((await errorOf(response)).message).toBe("echoer cannot run this call: script noext has no shebang line and no known extension (.sh, .bash, .py): no interpreter to run it with");
  });

  it("refuses a script name that is not one of the skill's scripts (400 invalid_args)", async () => {
    for (const script of ["../SKILL.md", "/bin/sh", "escape.sh", "missing.sh"]) {
      const response = await runScript("linker", script);
      expect(response.status, script).toBe(400);
      expect((await errorOf(response)).code).toBe("invalid_args");
    }
  });

  it("refuses a script swapped for a symlink out of scripts/ after loading, before storing anything", async () => {
    const dir = path.join(testConsole.nativeRoot, "tools", "linker", "scripts");
    fs.renameSync(path.join(dir, "ok.sh"), path.join(dir, "ok.sh.bak"));
    fs.symlinkSync(outside, path.join(dir, "ok.sh"));
    try {
      const response = await runScript("linker", "ok.sh");
      expect(response.status).toBe(409);
      expect((await errorOf(response)).message).toBe(
        `linker cannot run this call: scripts/escape.sh in ${fs.realpathSync(path.join(testConsole.nativeRoot, "tools", "linker"))} is a link out of the skill's folder (to ${outside}): a call cannot be bound to what it names`,
      );
    } finally {
      fs.rmSync(path.join(dir, "ok.sh"));
      fs.renameSync(path.join(dir, "ok.sh.bak"), path.join(dir, "ok.sh"));
    }
  });

  it("kills the whole process group on timeout", async () => {
    const { call } = (await (await runScript("echoer", "sleep.sh")).json()) as { call: Call };
    expect(call).toMatchObject({ status: "timed_out", error: "timed out after 2000 ms" });
  });
});

describe("class and policy of native scripts", () => {
  it("treats a skill that declares no class as mutating: denied to read-only, confirmed otherwise", async () => {
    const denied = await runScript("undeclared", "touch.sh", [], "reader");
    expect(denied.status).toBe(403);
    expect((await errorOf(denied)).message).toBe("undeclared: persona reader (read-only): a read-only persona may not run mutating skills");
    const waiting = await runScript("undeclared", "touch.sh", [], "confirmer");
    expect(waiting.status).toBe(202);
    expect(((await waiting.json()) as { call: Call }).call.status).toBe("awaiting_confirmation");
  });

  it("maps class synonyms (destructive = dangerous): two approvers must sign, and a changed script voids the approval", async () => {
    const response = await runScript("wipe-native", "wipe.sh", []);
    expect(response.status).toBe(202);
    const { call } = (await response.json()) as { call: Call };
    expect(call.status).toBe("awaiting_approval");
    const approval = await db().approval.findUniqueOrThrow({ where: { callId: call.id } });
    expect(JSON.parse(approval.digestInput)).toEqual({ skill: "wipe-native", args: { script: "wipe.sh", args: [] }, skillDigest: call.skillDigest });
    fs.appendFileSync(path.join(testConsole.nativeRoot, "ops", "wipe-native", "scripts", "wipe.sh"), "echo more\n");
    const approver = await createPerson("approver");
    const signed = await sign(approval.id, approver.headers);
    expect(signed.status).toBe(409);
    expect((await errorOf(signed)).message).toMatch(/^approval .+ is void: scripts\/wipe\.sh changed since the call was requested \(digest [0-9a-f]{12}… is now [0-9a-f]{12}…\)$/);
  });

  it("applies the persona's categories to native calls (403), not to subprocess skills", async () => {
    await createPersonaRow("ops_only", "dual-sign-required");
    await db().persona.update({ where: { name: "ops_only" }, data: { categories: JSON.stringify(["ops"]) } });
    const response = await runScript("echoer", "args.sh", [], "ops_only");
    expect(response.status).toBe(403);
    expect((await errorOf(response)).message).toBe("echoer: persona ops_only loads native skills only from categories ops; echoer is in tools");
  });
});
