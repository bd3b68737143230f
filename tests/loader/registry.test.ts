import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConfigError, resetConfigForTests } from "@/lib/server/env";
import { getRegistry, reloadRegistry, resetRegistryForTests } from "@/lib/server/skills/registry";
import { compileSchema, validateArgs } from "@/lib/validation/ajv";
import { addSkill, makeTempDir } from "./loader-fixtures";

const saved = { ...process.env };
let root: string;
let logged: string[];

/** How many scans have run so far, counted by the echo of a skill every scan registers. */
const scans = () => logged.filter((line) => line.startsWith('skill loader: registered subprocess skill "plain"')).length;

beforeEach(() => {
  root = makeTempDir("registry-");
  addSkill(root, "plain", { name: "plain", description: "A skill with no category" });
  addSkill(root, "ops-b", { name: "b_two", category: "ops", description: "Restart a service" });
  addSkill(root, "ops-a", { name: "a_one", category: "ops", description: "Clean the DISK cache", class: "mutating" });
  addSkill(root, "logs", { name: "scan", category: "logs", description: "Scan a log" });
  process.env.ONGRID_SKILLS_EXTERNAL_DIRS = root;
  // No native skills here (the bundled ones would join the listing).
  process.env.SKILLS_PATH = makeTempDir("registry-native-");
  delete process.env.SKILL_DEFAULT_TIMEOUT_SECONDS;
  resetConfigForTests();
  resetRegistryForTests();
  logged = [];
  vi.spyOn(console, "log").mockImplementation((line: unknown) => void logged.push(String(line)));
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(() => {
  process.env = saved;
  resetConfigForTests();
  resetRegistryForTests();
});

describe("skill registry (DESIGN.md: one loader; requests wait for the first scan)", () => {
  it("runs the first scan once however many callers wait for it, and prints the loader's lines", async () => {
    const [a, b, c] = await Promise.all([getRegistry(), getRegistry(), getRegistry()]);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(scans()).toBe(1);
    expect(logged).toEqual(a.report().log);
    expect(a.report().count).toBe(4);
    expect(await getRegistry()).toBe(a);
  });

  it("keeps one instance per process on globalThis, for every route bundle", async () => {
    const registry = await getRegistry();
    const held = (globalThis as Record<symbol, { current: unknown } | undefined>)[Symbol.for("skill-console.registry")];
    expect(held?.current).toBe(registry);
  });

  it("lists by category then name, filters by exact category and by a case-insensitive q", async () => {
    const registry = await getRegistry();
    const names = (filter?: { category?: string; q?: string }) => registry.list(filter).map((skill) => `${skill.category}/${skill.name}`);
    expect(names()).toEqual(["external/plain", "logs/scan", "ops/a_one", "ops/b_two"]);
    expect(names({ category: "ops" })).toEqual(["ops/a_one", "ops/b_two"]);
    expect(names({ category: "Ops" })).toEqual([]);
    expect(names({ q: "disk" })).toEqual(["ops/a_one"]);
    expect(names({ q: "LOGS" })).toEqual(["logs/scan"]);
    expect(names({ q: "_TW" })).toEqual(["ops/b_two"]);
    expect(names({ category: "ops", q: "restart" })).toEqual(["ops/b_two"]);
    expect(names({ q: "  " })).toHaveLength(4);
    expect(registry.categories()).toEqual(["external", "logs", "ops"]);
    expect(registry.get("a_one")?.class).toBe("mutating");
    expect(registry.get("A_ONE")).toBeUndefined();
  });

  it("freezes what it serves so no caller can change another's view", async () => {
    const skill = (await getRegistry()).get("scan")!;
    expect(Object.isFrozen(skill)).toBe(true);
    expect(Object.isFrozen(skill.schema)).toBe(true);
    expect(() => {
      (skill as { description: string }).description = "changed";
    }).toThrow(TypeError);
    // Frozen schemas still validate (the executor's path), using the validator the loader compiled.
    expect(validateArgs(skill.schema, {})).toEqual({ ok: true });
    expect(compileSchema(skill.schema)).toBe(compileSchema(skill.schema));
  });

  it("swaps in a new snapshot on reload while holders of the old one keep theirs", async () => {
    const before = await getRegistry();
    addSkill(root, "new", { name: "newcomer" });
    const report = await reloadRegistry();
    const after = await getRegistry();
    expect(after).not.toBe(before);
    expect(report).toBe(after.report());
    expect(report.count).toBe(5);
    expect(after.get("newcomer")?.name).toBe("newcomer");
    expect(before.get("newcomer")).toBeUndefined();
    expect(before.report().count).toBe(4);
  });

  it("coalesces concurrent reloads into one follow-up scan", async () => {
    await getRegistry();
    const first = reloadRegistry();
    const second = reloadRegistry();
    const third = reloadRegistry();
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    addSkill(root, "late", { name: "late" });
    const [, report] = await Promise.all([first, second, third]);
    expect(scans()).toBe(3);
    expect(report.registered.map((entry) => entry.name)).toContain("late");
    expect((await getRegistry()).report()).toBe(report);
  });

  it("lets a reload requested before the first scan stand in for it", async () => {
    const reload = reloadRegistry();
    const registry = await getRegistry();
    expect(await reload).toBe(registry.report());
    expect(scans()).toBe(1);
  });

  it("rejects while the settings are unusable and recovers once they are fixed", async () => {
    process.env.SKILL_DEFAULT_TIMEOUT_SECONDS = "soon";
    resetConfigForTests();
    await expect(getRegistry()).rejects.toThrow(ConfigError);
    process.env.SKILL_DEFAULT_TIMEOUT_SECONDS = "12";
    resetConfigForTests();
    expect((await getRegistry()).get("plain")?.timeoutSeconds).toBe(12);
  });
});
