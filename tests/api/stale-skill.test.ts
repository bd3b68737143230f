/**
 * The policy never judges a call by a skill record older than the skill file it binds (issue 13 point
 * 4 with issue 9 point 2): a skill.json or SKILL.md changed on disk and not rescanned yet (watching is
 * off here) is rescanned when a call of it is requested, and the call is judged by the new class —
 * never run as the `safe` skill it was. A worker's plan refuses a skill file that is not the one its
 * own loader read.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { config } from "@/lib/server/env";
import { planCall, StaleSkillError } from "@/lib/server/skills/call-plan";
import { getRegistry } from "@/lib/server/skills/registry";
import type { Call } from "@/lib/types/call";
import { setUpTestConsole, writeNativeSkill, writeSkill, type TestConsole } from "../helpers/test-console";
import { requestCall } from "./approvals-fixtures";

let testConsole: TestConsole;
let markers: string;

function runs(name: string): number {
  const file = path.join(markers, `${name}.runs`);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  markers = path.join(testConsole.dir, "markers");
  fs.mkdirSync(markers);
  process.env.MARKER_DIR = markers;
  for (const name of ["flipped", "control"]) {
    writeSkill(testConsole.root, name, { name, class: name === "control" ? "dangerous" : "safe", env_allow: ["MARKER_DIR"] }, `cat > /dev/null; echo run >> "$MARKER_DIR/${name}.runs"; echo '{"ran": true}'`);
  }
  writeNativeSkill(testConsole.nativeRoot, "ops", "native-flip", { frontmatter: "name: native-flip\ndescription: a native skill", files: { "scripts/hello.sh": "#!/bin/bash\necho hello\n" } });
});

describe("a skill file changed on disk before any rescan", () => {
  it("is judged by its new class: a safe skill made dangerous is not run as safe", async () => {
    const dangerous = await requestCall("control", { args: {} });
    const expected = { status: dangerous.status, callStatus: ((await dangerous.json()) as { call?: Call }).call?.status };
    expect(expected.status).not.toBe(200);

    const manifest = path.join(testConsole.root, "flipped", "skill.json");
    const before = await requestCall("flipped", { args: {} });
    expect(before.status).toBe(200);
    expect(runs("flipped")).toBe(1);
    const text = JSON.parse(fs.readFileSync(manifest, "utf8")) as Record<string, unknown>;
    fs.writeFileSync(manifest, JSON.stringify({ ...text, class: "dangerous" }));
    expect((await getRegistry()).get("flipped")?.class).toBe("safe");

    const after = await requestCall("flipped", { args: {} });
    // Exactly what a dangerous skill gets from the start, and nothing ran.
    expect({ status: after.status, callStatus: ((await after.json()) as { call?: Call }).call?.status }).toEqual(expected);
    expect(runs("flipped")).toBe(1);
    expect((await getRegistry()).get("flipped")?.class).toBe("dangerous");
  });

  it("makes a plan refuse a skill file that is not the one the loader read, subprocess or native", async () => {
    const settings = { scriptInterpreters: config().scriptInterpreters, systemPath: "/usr/bin:/bin" };
    const registry = await getRegistry();
    const control = registry.get("control")!;
    const native = registry.get("native-flip")!;
    await expect(planCall(control, "{}", settings)).resolves.toBeTruthy();
    await expect(planCall(native, JSON.stringify({ script: "hello.sh" }), settings)).resolves.toBeTruthy();

    fs.appendFileSync(path.join(testConsole.root, "control", "skill.json"), "\n");
    fs.writeFileSync(path.join(testConsole.nativeRoot, "ops", "native-flip", "SKILL.md"), "---\nname: native-flip\ndescription: now something else\n---\n");
    await expect(planCall(control, "{}", settings)).rejects.toThrow(StaleSkillError);
    await expect(planCall(control, "{}", settings)).rejects.toThrow(`control changed on disk since it was loaded (skill.json is not the file the loader read): it is being loaded again, retry`);
    await expect(planCall(native, JSON.stringify({ script: "hello.sh" }), settings)).rejects.toThrow(StaleSkillError);
  });
});
