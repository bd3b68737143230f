import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, splitRoots } from "@/lib/server/env";
import { addSkill, load, makeTempDir } from "./loader-fixtures";

/** A stand-in environment for loadConfig (Next's types make NODE_ENV required on ProcessEnv). */
const envOf = (vars: Record<string, string>) => vars as unknown as NodeJS.ProcessEnv;

describe("subprocess loader: allow-list roots (seed 000 \"Reglas de allow-list\")", () => {
  it("skips a relative root with a log line and still scans the others", async () => {
    const root = makeTempDir();
    const manifest = addSkill(root, "ok", { name: "ok" });
    const { report, skills } = await load(["relative/skills", root]);
    expect(report.log).toEqual([
      'skill loader: skipping relative root "relative/skills"',
      `skill loader: registered subprocess skill "ok" from ${manifest}`,
    ]);
    expect(report.roots).toEqual([
      { path: "relative/skills", status: "skipped", reason: "relative path" },
      { path: root, status: "scanned", reason: null },
    ]);
    expect(skills.map((skill) => skill.name)).toEqual(["ok"]);
    expect(report.count).toBe(1);
  });

  it("skips a missing root (a fresh install starts fine)", async () => {
    const missing = path.join(makeTempDir(), "etc", "ongrid", "skills");
    const { report } = await load([missing]);
    expect(report.log).toEqual([`skill loader: skipping missing root ${missing}`]);
    expect(report.roots).toEqual([{ path: missing, status: "skipped", reason: "does not exist" }]);
    expect(report.count).toBe(0);
    expect([report.registered, report.skipped, report.failed]).toEqual([[], [], []]);
  });

  it("skips a root that is a file", async () => {
    const file = path.join(makeTempDir(), "not-a-dir");
    fs.writeFileSync(file, "x");
    const { report } = await load([file]);
    expect(report.log).toEqual([`skill loader: skipping root ${file}: not a directory`]);
    expect(report.roots).toEqual([{ path: file, status: "skipped", reason: "not a directory" }]);
  });

  it("canonicalises a root with realpath and scans a root listed twice only once", async () => {
    const real = makeTempDir();
    const link = path.join(makeTempDir(), "link-to-root");
    fs.symlinkSync(real, link);
    const manifest = addSkill(real, "one", { name: "one" });
    const { report, skills } = await load([link, real]);
    expect(report.roots).toEqual([
      { path: real, status: "scanned", reason: null },
      { path: real, status: "skipped", reason: "already scanned" },
    ]);
    expect(report.log).toEqual([
      `skill loader: registered subprocess skill "one" from ${manifest}`,
      `skill loader: skipping root ${real}: already scanned`,
    ]);
    expect(skills[0]?.source).toEqual({ root: real, path: manifest });
  });

  it("reads colon- and comma-separated roots from ONGRID_SKILLS_EXTERNAL_DIRS and scans them in that order", async () => {
    const [a, b, c] = [makeTempDir("root-a-"), makeTempDir("root-b-"), makeTempDir("root-c-")] as [string, string, string];
    const inA = addSkill(a, "x", { name: "from_a" });
    const inB = addSkill(b, "x", { name: "from_b" });
    const inC = addSkill(c, "x", { name: "from_c" });
    expect(splitRoots(` ${c} :${a},,${b}, `)).toEqual([c, a, b]);
    const settings = loadConfig(envOf({ ONGRID_SKILLS_EXTERNAL_DIRS: `${c}:${a},${b}` }));
    expect(settings.skillRoots).toEqual([c, a, b]);
    expect(settings.externalRootsConfigured).toBe(true);
    const { report } = await load(settings.skillRoots);
    expect(report.log).toEqual([
      `skill loader: registered subprocess skill "from_c" from ${inC}`,
      `skill loader: registered subprocess skill "from_a" from ${inA}`,
      `skill loader: registered subprocess skill "from_b" from ${inB}`,
    ]);
    expect(report.count).toBe(3);
  });

  it("uses the bundled skills folder as the only root when ONGRID_SKILLS_EXTERNAL_DIRS is unset or blank", () => {
    for (const env of [{}, { ONGRID_SKILLS_EXTERNAL_DIRS: "  " }] as Record<string, string>[]) {
      const settings = loadConfig(envOf({ ...env, SKILLS_PATH: "/opt/console/skills" }));
      expect(settings.skillRoots).toEqual(["/opt/console/skills"]);
      expect(settings.externalRootsConfigured).toBe(false);
    }
  });

  it("does nothing with no roots", async () => {
    const { report, skills } = await load([]);
    expect(skills).toEqual([]);
    expect(report).toMatchObject({ roots: [], registered: [], skipped: [], failed: [], log: [], count: 0 });
  });

  it("echoes every log line to the log sink as it goes (console.log by default)", async () => {
    const root = makeTempDir();
    addSkill(root, "a", { name: "a" });
    const echoed: string[] = [];
    const { report } = await load(["rel", root], { log: (line) => echoed.push(line) });
    expect(echoed).toEqual(report.log);
    expect(echoed).toHaveLength(2);
  });
});
