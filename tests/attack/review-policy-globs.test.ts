/**
 * A persona's `skills.deny` must catch every skill its glob reads as catching (DESIGN.md / issue 4
 * point 2: `*` globs, "`*` matches any run of characters", deny wins). A skill's `category` is free
 * text in its manifest, so it may contain "/" (or a leading "./"); a path-style glob engine's `*`
 * stops at "/", and `deny: ["category:prod*"]` (or even `category:*`) would then let a skill of
 * category `prod/db` through under a persona whose allow list names it by another entry.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as skillsRoute from "@/app/api/v1/skills/route";
import { db } from "@/lib/server/db";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPersonaRow, requestCall } from "../api/approvals-fixtures";

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole({ MARKER_DIR: "" });
  process.env.MARKER_DIR = testConsole.dir;
  writeSkill(testConsole.root, "db_wipe", { name: "db_wipe", class: "mutating", category: "prod/db", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/db_wipe-ran"; echo "{}"');
  writeSkill(testConsole.root, "dot_wipe", { name: "dot_wipe", class: "mutating", category: "./prod", env_allow: ["MARKER_DIR"] }, 'touch "$MARKER_DIR/dot_wipe-ran"; echo "{}"');
  await createPersonaRow("ops-no-prod", "mutating-with-confirm", ["*"], ["category:prod*"]);
  await createPersonaRow("ops-no-category", "mutating-with-confirm", ["*"], ["category:*"]);
  await createPersonaRow("ops-no-dot", "mutating-with-confirm", ["*"], ["category:*prod"]);
});

describe("persona deny globs over free-text categories", () => {
  it.each([
    ["ops-no-prod", "db_wipe"],
    ["ops-no-category", "db_wipe"],
    ["ops-no-category", "dot_wipe"],
    ["ops-no-dot", "dot_wipe"],
  ])("persona %s refuses %s (403) and stores nothing", async (persona, skill) => {
    const response = await requestCall(skill, { args: {}, persona });
    expect(response.status, await response.clone().text()).toBe(403);
    expect(await db().call.count({ where: { skill, persona } })).toBe(0);
    expect(fs.existsSync(path.join(testConsole.dir, `${skill}-ran`))).toBe(false);
  });

  it("does not list the denied skills for the persona either", async () => {
    const response = await invoke(skillsRoute.GET, "/api/v1/skills?persona=ops-no-category");
    const { skills } = (await response.json()) as { skills: Array<{ name: string }> };
    expect(skills.map((skill) => skill.name)).toEqual([]);
  });
});
