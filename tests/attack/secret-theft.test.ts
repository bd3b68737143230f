/**
 * Stealing another skill's secret (DESIGN.md "Skill secrets": injected only into the named skills'
 * processes), tried for real while the skill it is given to runs on a bubblewrap worker: a skill that
 * sees the host's processes (`host_pids`, as kill-process does) reads every command line and every
 * environment it can under /proc; and the host is searched from the outside for a command line that
 * carries the value (bwrap got the environment as `--setenv NAME VALUE` arguments, readable by every
 * process of the host, before this test).
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import type { Call, CallWithEvents } from "@/lib/types/call";
import { requestCall, waitForStatus } from "../api/approvals-fixtures";
import { processesWith } from "../helpers/host-processes";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

const VALUE = `theft-target-${process.pid}-6c1f0e9a`;

const THIEF = `#!/usr/bin/env python3
import json, os
found = []
readable = 0
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    for name in ("cmdline", "environ"):
        try:
            with open("/proc/%s/%s" % (pid, name), "rb") as handle:
                text = handle.read()
            readable += 1
            if ${JSON.stringify(VALUE)}.encode() in text:
                found.append("%s/%s" % (pid, name))
        except Exception:
            pass
print(json.dumps({"found": found, "readable": readable}))
`;

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ SKILL_SANDBOX: "bwrap", SKILL_SANDBOX_ALLOW_PATHS: "" });
  writeSkill(testConsole.root, "holder", { name: "holder", timeout_seconds: 30 }, 'echo "holding" >&2; sleep 4; echo "{}"');
  writeSkill(testConsole.root, "thief", { name: "thief", sandbox: { host_pids: true } }, "exec python3 - <<'PY'\n" + THIEF + "PY");
  const created = await invoke(secretsRoute.POST, "/api/v1/secrets", { body: { name: "THEFT_TOKEN", value: VALUE, skills: ["holder"] } });
  expect(created.status).toBe(201);
});

describe("a secret given to one skill", () => {
  it("is on no command line of the host and in no process another skill can read while its skill runs", { timeout: 60_000 }, async () => {
    const started = await requestCall("holder", { args: {}, wait: false });
    expect(started.status).toBe(202);
    const { call: holder } = (await started.json()) as { call: Call };
    expect(await waitForStatus(holder.id, ["running"])).toBe("running");
    // Its process is up once its first line is stored.
    for (let tries = 0; ; tries++) {
      const full = (await (await invoke(callRoute.GET, `/api/v1/calls/${holder.id}`, { params: { id: holder.id } })).json()) as { call: CallWithEvents };
      if (full.call.events.some((event) => event.line === "holding")) break;
      if (tries > 200) throw new Error("the holder never started");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(processesWith(VALUE)).toEqual([]);
    const stolen = await requestCall("thief", { args: {}, wait: true });
    expect(stolen.status).toBe(200);
    const { call: thief } = (await stolen.json()) as { call: Call };
    expect(thief.status).toBe("succeeded");
    const result = thief.result as { found: string[]; readable: number };
    // It did see the host's processes (the attack ran), and found the value nowhere.
    expect(result.readable).toBeGreaterThan(10);
    expect(result.found).toEqual([]);
    expect(await waitForStatus(holder.id, ["succeeded"])).toBe("succeeded");
  });
});
