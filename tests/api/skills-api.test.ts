import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as notFoundRoute from "@/app/api/[...path]/route";
import * as reloadRoute from "@/app/api/v1/loader/reload/route";
import * as loaderRoute from "@/app/api/v1/loader/route";
import * as skillRoute from "@/app/api/v1/skills/[name]/route";
import * as skillsRoute from "@/app/api/v1/skills/route";
import type { LoaderReport, Skill } from "@/lib/types/skill";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";

let testConsole: TestConsole;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "a-disk", { name: "disk_report", category: "system", description: "Reports disk usage" }, 'echo "{}"');
  writeSkill(testConsole.root, "b-logs", { name: "log_tail", category: "logs", class: "mutating", timeout_seconds: 5, env_allow: ["PATH"] }, 'echo "{}"');
  writeSkill(testConsole.root, "b-typo", { name: "typo_skill", category: "logs", "env-allow": ["PATH"] }, 'echo "{}"');
  writeSkill(testConsole.root, "c-dup", { name: "disk_report", category: "system" }, 'echo "{}"');
  fs.mkdirSync(path.join(testConsole.root, "d-broken"));
  fs.writeFileSync(path.join(testConsole.root, "d-broken", "skill.json"), "{ nope");
});

describe("GET /api/v1/skills", () => {
  it("lists registered skills with the Skill shape, sorted by category then name", async () => {
    const { skills } = (await (await invoke(skillsRoute.GET, "/api/v1/skills")).json()) as { skills: Skill[] };
    expect(skills.map((skill) => [skill.category, skill.name])).toEqual([
      ["logs", "log_tail"],
      ["logs", "typo_skill"],
      ["system", "disk_report"],
    ]);
    expect(skills[0]).toEqual({
      name: "log_tail",
      kind: "subprocess",
      description: "test skill b-logs",
      category: "logs",
      class: "mutating",
      schema: { type: "object", properties: {} },
      timeoutSeconds: 5,
      envAllow: ["PATH"],
      source: { root: fs.realpathSync(testConsole.root), path: path.join(fs.realpathSync(testConsole.root), "b-logs", "skill.json") },
      available: true,
      unavailableReason: null,
      warnings: [],
      sandbox: { read: [], write: [], network: true, devices: [], hostPids: false },
      secretsNeeded: [],
      secretsGiven: [],
    });
    expect(JSON.stringify(skills)).not.toContain("run.sh\"");
  });

  it("filters by category and by a case-insensitive query", async () => {
    const byCategory = (await (await invoke(skillsRoute.GET, "/api/v1/skills?category=system")).json()) as { skills: Skill[] };
    expect(byCategory.skills.map((skill) => skill.name)).toEqual(["disk_report"]);
    const byQuery = (await (await invoke(skillsRoute.GET, "/api/v1/skills?q=DISK%20usage")).json()) as { skills: Skill[] };
    expect(byQuery.skills.map((skill) => skill.name)).toEqual(["disk_report"]);
  });

  it("serves one skill, and 404 not_found for an unknown name", async () => {
    const found = await invoke(skillRoute.GET, "/api/v1/skills/disk_report", { params: { name: "disk_report" } });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { skill: Skill }).skill.name).toBe("disk_report");
    const missing = await invoke(skillRoute.GET, "/api/v1/skills/ghost", { params: { name: "ghost" } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: 'no skill named "ghost"' } });
  });
});

describe("loader report", () => {
  it("reports registered, skipped and failed manifests with reasons and the seed's log lines", async () => {
    const { report } = (await (await invoke(loaderRoute.GET, "/api/v1/loader")).json()) as { report: LoaderReport };
    const root = fs.realpathSync(testConsole.root);
    expect(report.count).toBe(3);
    expect(report.registered.map((entry) => entry.name)).toEqual(["disk_report", "log_tail", "typo_skill"]);
    expect(report.skipped).toEqual([expect.objectContaining({ name: "disk_report", path: path.join(root, "c-dup", "skill.json") })]);
    expect(report.failed).toEqual([expect.objectContaining({ path: path.join(root, "d-broken", "skill.json") })]);
    expect(report.log).toContain(`skill loader: registered subprocess skill "disk_report" from ${path.join(root, "a-disk", "skill.json")}`);
    expect(report.log).toContain(`skill loader: skill "disk_report" already registered, skipping ${path.join(root, "c-dup", "skill.json")}`);
    expect(report.log.some((line) => line.startsWith(`skill loader: parse ${path.join(root, "d-broken", "skill.json")}: `))).toBe(true);
  });

  it("reports manifest warnings, such as a misspelt field, in the report and the log", async () => {
    const { report } = (await (await invoke(loaderRoute.GET, "/api/v1/loader")).json()) as { report: LoaderReport };
    const manifest = path.join(fs.realpathSync(testConsole.root), "b-typo", "skill.json");
    const entry = report.registered.find((registered) => registered.name === "typo_skill");
    expect(entry?.warnings).toHaveLength(1);
    expect(entry?.warnings[0]).toContain("env-allow");
    expect(report.registered.find((registered) => registered.name === "disk_report")?.warnings).toEqual([]);
    expect(report.log).toContain(`skill loader: warning "typo_skill" in ${manifest}: ${entry!.warnings[0]}`);
  });

  it("rescans on POST /api/v1/loader/reload and serves the new skill", async () => {
    writeSkill(testConsole.root, "e-new", { name: "fresh_skill", category: "system" }, 'echo "{}"');
    const missing = await invoke(skillRoute.GET, "/api/v1/skills/fresh_skill", { params: { name: "fresh_skill" } });
    expect(missing.status).toBe(404);
    const reload = await invoke(reloadRoute.POST, "/api/v1/loader/reload", { method: "POST" });
    expect(reload.status).toBe(200);
    expect(((await reload.json()) as { report: LoaderReport }).report.count).toBe(4);
    const found = await invoke(skillRoute.GET, "/api/v1/skills/fresh_skill", { params: { name: "fresh_skill" } });
    expect(found.status).toBe(200);
  });
});

describe("unknown API paths", () => {
  it("answer the JSON error envelope with 404", async () => {
    const response = await invoke(notFoundRoute.GET, "/api/v1/nothing-here", { params: { path: "v1/nothing-here" } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: "not_found", message: "no API endpoint GET /api/v1/nothing-here" } });
  });
});
