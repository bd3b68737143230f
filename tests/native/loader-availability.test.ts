import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadNativeSkills } from "@/lib/server/skills/native/native-loader";
import { scanSkills } from "@/lib/server/skills/scan-skills";
import { folderOfSkill } from "@/lib/server/skills/registered-skill";
import { withSecretGrants } from "@/lib/server/skills/secret-grants";
import { writeNativeSkill, writeSkill } from "../helpers/test-console";

let root: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "native-avail-")));
});

afterEach(() => {
  delete process.env.NATIVE_LOADER_TEST_TOKEN;
});

async function load(taken: string[] = []) {
  return loadNativeSkills(root, { defaultTimeoutSeconds: 30, taken: new Set(taken), log: () => undefined });
}

const skillNamed = async (name: string) => (await load()).skills.find((skill) => skill.name === name)!;

describe("availability (metadata.os, requires, OpenClaw gating keys)", () => {
  it("reads gating under metadata.moltbot, metadata.clawdhub, a dotted metadata.openclaw key and at the top level (os, requires, primaryEnv)", async () => {
    writeNativeSkill(root, "claw", "hub", { frontmatter: "name: hub\ndescription: d\nmetadata:\n  clawdhub:\n    requires:\n      bins: [no-such-bin-hub]" });
    writeNativeSkill(root, "claw", "dotted", { frontmatter: 'name: dotted\ndescription: d\nmetadata.openclaw: {"requires": {"env": ["NATIVE_LOADER_TEST_TOKEN"]}}' });
    writeNativeSkill(root, "claw", "molt", { frontmatter: 'name: molt\ndescription: d\nmetadata: {"moltbot": {"requires": {"bins": ["no-such-bin-molt"]}}}' });
    writeNativeSkill(root, "claw", "top", { frontmatter: "name: top\ndescription: d\nrequires:\n  bins: [no-such-bin-top]\n  env: [NATIVE_LOADER_TEST_TOKEN]" });
    writeNativeSkill(root, "claw", "primary", { frontmatter: "name: primary\ndescription: d\nprimaryEnv: NATIVE_LOADER_TEST_TOKEN" });
    writeNativeSkill(root, "claw", "elsewhere", { frontmatter: `name: elsewhere\ndescription: d\nos: [${process.platform === "win32" ? "linux" : "windows"}]` });
    const { skills } = await load();
    // requires.env and primaryEnv are secrets the skill needs (the registry makes it unavailable until given them), not host gating.
    expect(skills.map((skill) => [skill.name, skill.unavailableReason, skill.secretsNeeded])).toEqual([
      ["dotted", null, ["NATIVE_LOADER_TEST_TOKEN"]],
      ["elsewhere", `os not supported: runs on ${process.platform === "win32" ? "linux" : "win32"} (this host is ${process.platform})`, []],
      ["hub", "requires bins not found on PATH: no-such-bin-hub", []],
      ["molt", "requires bins not found on PATH: no-such-bin-molt", []],
      ["primary", null, ["NATIVE_LOADER_TEST_TOKEN"]],
      ["top", "requires bins not found on PATH: no-such-bin-top", ["NATIVE_LOADER_TEST_TOKEN"]],
    ]);
    expect(skills.find((skill) => skill.name === "dotted")!.warnings).toEqual(["the top-level key metadata.openclaw is read as openclaw under metadata"]);
  });

  it("marks a skill whose os list excludes this host unavailable", async () => {
    const other = process.platform === "win32" ? "linux" : "windows";
    const expected = process.platform === "win32" ? "linux" : "win32";
    writeNativeSkill(root, "ops", "os-skill", { frontmatter: `name: os-skill\ndescription: d\nmetadata:\n  os: ${other}` });
    const skill = await skillNamed("os-skill");
    expect(skill.available).toBe(false);
    expect(skill.unavailableReason).toBe(`os not supported: runs on ${expected} (this host is ${process.platform})`);
  });

  it("lists the requires.bins missing from PATH", async () => {
    writeNativeSkill(root, "ops", "kube", {
      frontmatter: "name: kube\ndescription: d\nmetadata:\n  requires:\n    bins: [sh, no-such-bin-kubectl-x, no-such-bin-helm-x]\n    config: [kube.context]",
    });
    const skill = await skillNamed("kube");
    expect(skill.available).toBe(false);
    expect(skill.unavailableReason).toBe("requires bins not found on PATH: no-such-bin-kubectl-x, no-such-bin-helm-x");
  });

  it("needs only one of requires.anyBins", async () => {
    writeNativeSkill(root, "ops", "any-ok", { frontmatter: "name: any-ok\ndescription: d\nmetadata:\n  requires:\n    anyBins: [no-such-bin-a, sh]" });
    writeNativeSkill(root, "ops", "any-none", { frontmatter: "name: any-none\ndescription: d\nmetadata:\n  requires:\n    anyBins: [no-such-bin-a, no-such-bin-b]" });
    const { skills } = await load();
    expect(skills.map((skill) => [skill.name, skill.available, skill.unavailableReason])).toEqual([
      ["any-none", false, "requires one of these bins on PATH, none found: no-such-bin-a, no-such-bin-b"],
      ["any-ok", true, null],
    ]);
  });

  it("reads metadata.openclaw and its legacy names clawdbot and clawdis, with requires.env", async () => {
    writeNativeSkill(root, "claw", "claw-new", {
      frontmatter: 'name: claw-new\ndescription: d\nmetadata: {"openclaw": {"requires": {"bins": ["no-such-bin-claw"], "env": ["NATIVE_LOADER_TEST_TOKEN"]}}}',
    });
    writeNativeSkill(root, "claw", "claw-old", { frontmatter: 'name: claw-old\ndescription: d\nmetadata: {"clawdbot": {"os": ["macos"]}}' });
    writeNativeSkill(root, "claw", "claw-older", { frontmatter: 'name: claw-older\ndescription: d\nmetadata: {"clawdis": {"requires": {"env": "NATIVE_LOADER_TEST_TOKEN"}}}' });
    const { skills } = await load();
    expect(skills.map((skill) => [skill.name, skill.unavailableReason, skill.secretsNeeded])).toEqual([
      ["claw-new", "requires bins not found on PATH: no-such-bin-claw", ["NATIVE_LOADER_TEST_TOKEN"]],
      ["claw-old", process.platform === "darwin" ? null : `os not supported: runs on darwin (this host is ${process.platform})`, []],
      ["claw-older", null, ["NATIVE_LOADER_TEST_TOKEN"]],
    ]);
  });

  it("offers a skill that needs a secret as unavailable until the secret is given to it; the console's environment never counts", async () => {
    writeNativeSkill(root, "claw", "claw-older", { frontmatter: 'name: claw-older\ndescription: d\nmetadata: {"clawdis": {"requires": {"env": "NATIVE_LOADER_TEST_TOKEN"}}}' });
    writeNativeSkill(root, "claw", "claw-new", { frontmatter: 'name: claw-new\ndescription: d\nmetadata: {"openclaw": {"requires": {"bins": ["no-such-bin-claw"], "env": ["NATIVE_LOADER_TEST_TOKEN", "OTHER_TOKEN"]}}}' });
    process.env.NATIVE_LOADER_TEST_TOKEN = "set in the console's own environment";
    const { skills } = await load();
    // Grants as the registry reads them: each given in the folder the skill lives in.
    const folders = new Map(skills.map((skill) => [skill.name, folderOfSkill(skill)]));
    const offered = (given: Map<string, string[]>, folderOf = (skill: string) => folders.get(skill)!) => {
      const grants = new Map([...given].map(([skill, secrets]) => [skill, secrets.map((secret) => ({ secret, folder: folderOf(skill) }))]));
      return skills.map((skill) => withSecretGrants(skill, grants)).map((skill) => [skill.name, skill.available, skill.unavailableReason, skill.secretsGiven]);
    };
    expect(offered(new Map())).toEqual([
      ["claw-new", false, "requires bins not found on PATH: no-such-bin-claw; needs secrets NATIVE_LOADER_TEST_TOKEN, OTHER_TOKEN: no secrets of those names are given to this skill (Secrets page)", []],
      ["claw-older", false, "needs secret NATIVE_LOADER_TEST_TOKEN: no secret of that name is given to this skill (Secrets page)", []],
    ]);
    // Given to another skill only: still missing here.
    expect(offered(new Map([["claw-new", ["NATIVE_LOADER_TEST_TOKEN"]]]))).toEqual([
      ["claw-new", false, "requires bins not found on PATH: no-such-bin-claw; needs secret OTHER_TOKEN: no secret of that name is given to this skill (Secrets page)", ["NATIVE_LOADER_TEST_TOKEN"]],
      ["claw-older", false, "needs secret NATIVE_LOADER_TEST_TOKEN: no secret of that name is given to this skill (Secrets page)", []],
    ]);
    expect(offered(new Map([["claw-older", ["EXTRA", "NATIVE_LOADER_TEST_TOKEN"]]]))[1]).toEqual(["claw-older", true, null, ["EXTRA", "NATIVE_LOADER_TEST_TOKEN"]]);
    // Given to a skill of that name in another folder (one that took the name from another root): not given here.
    expect(offered(new Map([["claw-older", ["NATIVE_LOADER_TEST_TOKEN"]]]), () => "/srv/other-root/claw/claw-older")[1]).toEqual([
      "claw-older",
      false,
      `needs secret NATIVE_LOADER_TEST_TOKEN: it was given to the skill claw-older in /srv/other-root/claw/claw-older, not this one in ${folders.get("claw-older")} (Secrets page: name the skill again to give it here)`,
      [],
    ]);
  });

  it("says when a required variable is one no secret may be (IFS, PATH, LD_…): it can never be given, and the Secrets page would refuse it", async () => {
    writeNativeSkill(root, "claw", "shelly", { frontmatter: "name: shelly\ndescription: d\nrequires:\n  env: [IFS, LD_PRELOAD, PLAIN_TOKEN]" });
    const skill = await skillNamed("shelly");
    const offered = withSecretGrants(skill, new Map([["shelly", [{ secret: "PLAIN_TOKEN", folder: folderOfSkill(skill) }]]]));
    expect([offered.available, offered.unavailableReason, offered.secretsGiven]).toEqual([
      false,
      "needs IFS, which no secret can give it: IFS cannot be a secret: the shell that puts a call in its cgroups sets IFS itself, so a skill would never see the value; " +
        "needs LD_PRELOAD, which no secret can give it: LD_PRELOAD cannot be a secret: it is one of the console's own secrets or changes how programs run, not what they are given",
      ["PLAIN_TOKEN"],
    ]);
  });

  it("warns about an unknown os word and malformed requires entries, still loading", async () => {
    writeNativeSkill(root, "ops", "odd-meta", { frontmatter: "name: odd-meta\ndescription: d\nmetadata:\n  os: [linux, darwin, plan9]\n  requires:\n    bins: [sh, 42]" });
    const skill = await skillNamed("odd-meta");
    expect(skill.warnings).toEqual(['metadata.os: unknown operating system "plan9"', "metadata.requires.bins: ignored 42 (not a non-empty string)"]);
    expect(skill.available).toBe(process.platform === "linux" || process.platform === "darwin");
  });
});

describe("class, tools, env_allow and timeout", () => {
  it("reads class synonyms case-insensitively, and an unknown word as dangerous with a warning", async () => {
    writeNativeSkill(root, "c", "reader", { frontmatter: "name: reader\ndescription: d\nclass: Read" });
    writeNativeSkill(root, "c", "writer", { frontmatter: "name: writer\ndescription: d\nclass: write" });
    writeNativeSkill(root, "c", "wrecker", { frontmatter: "name: wrecker\ndescription: d\nclass: DESTRUCTIVE" });
    writeNativeSkill(root, "c", "weird", { frontmatter: "name: weird\ndescription: d\nclass: harmless" });
    writeNativeSkill(root, "c", "plain", { frontmatter: "name: plain\ndescription: d" });
    const { skills } = await load();
    expect(skills.map((skill) => [skill.name, skill.declaredClass, skill.class])).toEqual([
      ["plain", null, "mutating"],
      ["reader", "safe", "safe"],
      ["weird", "dangerous", "dangerous"],
      ["wrecker", "dangerous", "dangerous"],
      ["writer", "mutating", "mutating"],
    ]);
    expect(skills.find((skill) => skill.name === "weird")!.warnings).toEqual(['unknown class "harmless"; counted as dangerous']);
  });

  it("takes the highest class of tools[] when the skill declares none, dropping malformed entries", async () => {
    writeNativeSkill(root, "c", "tooled", {
      frontmatter: [
        "name: tooled",
        "description: d",
        "tools:",
        "  - name: query_promql",
        "    impl: builtin:prom.QueryPromQL",
        "    class: read",
        "    description: Execute a PromQL query.",
        "  - name: restart",
        "    class: write",
        "  - just a string",
        "  - impl: nameless",
      ].join("\n"),
    });
    const skill = await skillNamed("tooled");
    expect(skill.tools).toEqual([
      { name: "query_promql", impl: "builtin:prom.QueryPromQL", class: "safe", description: "Execute a PromQL query." },
      { name: "restart", impl: null, class: "mutating", description: null },
    ]);
    expect(skill.declaredClass).toBe("mutating");
    expect(skill.class).toBe("mutating");
    expect(skill.warnings).toEqual(["tools[2] is not a mapping; dropped", "tools[3] has no name; dropped"]);
  });

  it("own class wins over tools[]; env_allow and timeout_seconds are read like skill.json", async () => {
    writeNativeSkill(root, "c", "own", {
      frontmatter: "name: own\ndescription: d\nclass: safe\ntools:\n  - name: x\n    class: destructive\nenv_allow: [HOME, HOME, 'bad-name']\ntimeout_seconds: 7",
    });
    writeNativeSkill(root, "c", "bad-timeout", { frontmatter: "name: bad-timeout\ndescription: d\ntimeout_seconds: -3" });
    const { skills } = await load();
    const own = skills.find((skill) => skill.name === "own")!;
    expect([own.declaredClass, own.envAllow, own.timeoutSeconds]).toEqual(["safe", ["HOME"], 7]);
    expect(own.warnings).toEqual(['env_allow: ignored "bad-name" (not an environment variable name)']);
    const bad = skills.find((skill) => skill.name === "bad-timeout")!;
    expect(bad.timeoutSeconds).toBe(30);
    expect(bad.warnings).toEqual(["timeout_seconds -3 is not a whole number of seconds from 1 to 86400; using 30"]);
  });
});

describe("layout, duplicates and the merged report", () => {
  it("reports a SKILL.md right under the skills path or one level too deep, never leaves it out silently", async () => {
    fs.writeFileSync(path.join(root, "SKILL.md"), "---\nname: top\ndescription: d\n---\n");
    writeNativeSkill(path.join(root, "ops"), "pack", "deep-skill");
    const { report } = await load();
    expect(report.skipped.map((entry) => [path.relative(root, entry.path), entry.reason])).toEqual([
      ["SKILL.md", "misplaced: native skills live in <skills path>/<category>/<skill>/SKILL.md, and this one sits right under the skills path"],
      ["ops/pack/deep-skill/SKILL.md", "misplaced: native skills live in <skills path>/<category>/<skill>/SKILL.md, and this one sits a level deeper"],
    ]);
  });

  it("walks <category>/<skill>/ only, skipping dot folders, skill.json-only folders and symlinked folders", async () => {
    writeNativeSkill(root, "ops", "good");
    writeNativeSkill(root, ".hidden", "secret");
    writeNativeSkill(root, "ops", ".dot-skill");
    fs.mkdirSync(path.join(root, "ops", "subprocess-only"));
    fs.writeFileSync(path.join(root, "ops", "subprocess-only", "skill.json"), "{}");
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "native-outside-"));
    writeNativeSkill(outside, "x", "linked");
    fs.symlinkSync(path.join(outside, "x", "linked"), path.join(root, "ops", "linked"));
    fs.writeFileSync(path.join(root, "ops", "SKILL.md"), "---\nname: misplaced\ndescription: d\n---\n");
    const { skills, report } = await load();
    expect(skills.map((skill) => skill.name)).toEqual(["good"]);
    expect(report.skipped.map((entry) => [entry.path, entry.reason])).toEqual([
      [path.join(root, "ops", "SKILL.md"), "misplaced: native skills live in <skills path>/<category>/<skill>/SKILL.md, and this one sits right under the category folder"],
      [path.join(root, "ops", "linked"), "skill folder is a symbolic link; not followed"],
    ]);
    expect(report.registered).toEqual([{ path: path.join(root, "ops", "good", "SKILL.md"), root, kind: "native", name: "good", reason: null, warnings: [], specDeviations: [] }]);
    expect(report.log[0]).toBe(`skill loader: skipping ${path.join(root, "ops", "SKILL.md")}: misplaced: native skills live in <skills path>/<category>/<skill>/SKILL.md, and this one sits right under the category folder`);
    expect(report.log).toContain(`skill loader: registered native skill "good" from ${path.join(root, "ops", "good", "SKILL.md")}`);
  });

  it("skips a native skill whose name is taken, by another kind or an earlier native skill (first wins)", async () => {
    writeNativeSkill(root, "a", "twin");
    writeNativeSkill(root, "b", "twin");
    writeNativeSkill(root, "b", "disk-report");
    const { skills, report } = await load(["disk-report"]);
    expect(skills.map((skill) => skill.source.path)).toEqual([path.join(root, "a", "twin", "SKILL.md")]);
    expect(report.skipped.map((entry) => [entry.path, entry.name, entry.reason])).toEqual([
      [path.join(root, "b", "disk-report", "SKILL.md"), "disk-report", "name already taken by a subprocess skill (subprocess skills load first)"],
      [path.join(root, "b", "twin", "SKILL.md"), "twin", `name already registered from ${path.join(root, "a", "twin", "SKILL.md")}`],
    ]);
    expect(report.log).toContain(`skill loader: skill "twin" already registered, skipping ${path.join(root, "b", "twin", "SKILL.md")}`);
  });

  it("reports a missing skills path as a skipped root without failing", async () => {
    const missing = path.join(root, "nope");
    const { skills, report } = await loadNativeSkills(missing, { defaultTimeoutSeconds: 30, log: () => undefined });
    expect(skills).toEqual([]);
    expect(report.roots).toEqual([{ path: missing, status: "skipped", reason: "does not exist" }]);
    expect(report.log).toEqual([`skill loader: skipping missing root ${missing}`]);
  });

  it("scanSkills loads subprocess skills first, then native ones, and merges the reports", async () => {
    const subprocessRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "native-scan-sub-")));
    writeSkill(subprocessRoot, "a-disk", { name: "disk_usage" }, 'echo "{}"');
    writeNativeSkill(root, "system", "disk_usage", { frontmatter: "name: disk_usage\ndescription: native twin" });
    writeNativeSkill(root, "system", "health-check");
    const { skills, report } = await scanSkills({ skillRoots: [subprocessRoot], skillsPath: root, defaultTimeoutSeconds: 30, sandboxAllowPaths: [], sandboxHiddenPaths: [], bundledSkillsDir: "/nonexistent" }, () => undefined);
    expect(skills.map((skill) => [skill.kind, skill.name])).toEqual([
      ["subprocess", "disk_usage"],
      ["native", "health-check"],
    ]);
    expect(report.count).toBe(2);
    expect(report.roots).toEqual([
      { path: subprocessRoot, status: "scanned", reason: null },
      { path: root, status: "scanned", reason: null },
    ]);
    expect(report.registered.map((entry) => [entry.kind ?? "subprocess", entry.name])).toEqual([
      ["subprocess", "disk_usage"],
      ["native", "health-check"],
    ]);
    expect(report.skipped.map((entry) => [entry.kind, entry.name, entry.reason])).toEqual([
      ["native", "disk_usage", "name already taken by a subprocess skill (subprocess skills load first)"],
    ]);
  });
});
