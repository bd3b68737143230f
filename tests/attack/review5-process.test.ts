import { beforeAll, describe, expect, it } from "vitest";
import type { Call } from "@/lib/types/call";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, requestCall } from "../api/approvals-fixtures";

// Review 5 (attacker): a native script that leaves processes behind, or floods stdout. The call's
// process group is terminated when the script ends or times out, and stdout stays bounded.

let operator: TestPerson;

beforeAll(async () => {
  const testConsole = await setUpTestConsole({ SKILL_STDOUT_LIMIT_BYTES: "65536" });
  writeNativeSkill(testConsole.nativeRoot, "tools", "leaver", {
    frontmatter: "name: leaver\ndescription: leaves processes behind\nclass: safe\ntimeout_seconds: 2",
    files: {
      "scripts/nohup.sh": "#!/bin/bash\nnohup sleep 300 </dev/null >/dev/null 2>&1 &\necho $!\n",
      "scripts/hold-stdout.sh": "#!/bin/bash\n(sleep 300; echo late) &\necho $!\n",
      "scripts/timeout.sh": "#!/bin/bash\nsleep 300 </dev/null >/dev/null 2>&1 &\necho $!\nsleep 300\n",
      "scripts/flood.sh": "#!/bin/sh\nyes flood\n",
    },
  });
  await reloadTestConsole();
  await createPersonaRow("runner", "mutating-with-confirm");
  operator = await createPerson("operator");
});

async function run(script: string): Promise<Call> {
  const response = await requestCall("leaver", { args: { script, args: [] }, persona: "runner" }, operator.headers);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status} ${text}`);
  return (JSON.parse(text) as { call: Call }).call;
}

/** The pid a script printed: a real process id, never NaN, 0 or 1 (which kill(2) would not read as one process). */
function pidOf(text: string | undefined): number {
  const pid = Number(text);
  expect(Number.isInteger(pid), `pid ${JSON.stringify(text)}`).toBe(true);
  expect(pid).toBeGreaterThan(1);
  return pid;
}

/** True while `pid` exists: only ESRCH means it is gone; any other error is a bug of the test. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

async function eventuallyDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && alive(pid); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  return !alive(pid);
}

describe("leftover processes", () => {
  it("a nohup'd background child of a script that exited is killed with the group", async () => {
    const call = await run("nohup.sh");
    expect(call.status).toBe("succeeded");
    const pid = pidOf((call.result as { stdout: string }).stdout.trim());
    expect(await eventuallyDead(pid)).toBe(true);
  });

  it("a background child that holds stdout does not keep the call open, and dies", async () => {
    const started = Date.now();
    const call = await run("hold-stdout.sh");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(call.status).toBe("succeeded");
    const pid = pidOf((call.result as { stdout: string }).stdout.trim().split("\n")[0]);
    expect(await eventuallyDead(pid)).toBe(true);
  });

  it("on timeout the whole group goes, the background sleeper too", async () => {
    const call = await run("timeout.sh");
    expect(call.status).toBe("timed_out");
    const pid = pidOf((call.result as { stdout: string }).stdout.trim());
    expect(await eventuallyDead(pid)).toBe(true);
  });

  it("stdout flood is cut at the limit and the call fails, quickly", async () => {
    const started = Date.now();
    const call = await run("flood.sh");
    expect(call.status).toBe("failed");
    expect(call.error).toBe("stdout exceeded 65536 bytes");
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
