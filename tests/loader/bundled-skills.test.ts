import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { SubprocessSkill } from "@/lib/server/skills/registered-skill";
import type { JsonSchema } from "@/lib/types/skill";
import { validateArgs } from "@/lib/validation/ajv";
import { load, makeTempDir } from "./loader-fixtures";

const BUNDLED = fileURLToPath(new URL("../../skills", import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a skill's entry the way the executor does: cwd = its folder, env = only env_allow, stdin = args JSON. */
function runSkill(skill: SubprocessSkill, args: Record<string, unknown>): Promise<Run> {
  // Only the env_allow names; the cast is because Next's types declare NODE_ENV as always present.
  const env = {} as NodeJS.ProcessEnv;
  for (const name of skill.envAllow) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(skill.entryPath, [], { cwd: skill.workingDirectory, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(JSON.stringify(args));
  });
}

/** The args a form would send untouched: every top-level property's `default`. */
function defaultsOf(schema: JsonSchema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  return Object.fromEntries(Object.entries(properties).flatMap(([key, property]) => ("default" in property ? [[key, property.default]] : [])));
}

/** Paths of properties (at any depth) that have no description. */
function undescribed(schema: Record<string, unknown>, at = ""): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(properties).flatMap(([key, property]) => [
    ...(typeof property.description === "string" && property.description !== "" ? [] : [`${at}/${key}`]),
    ...undescribed(property, `${at}/${key}`),
  ]);
}

/** Parses stdout, asserting it holds exactly one JSON object. */
function onlyObject(run: Run): Record<string, unknown> {
  expect(run.stdout.trim().split("\n")).toHaveLength(1);
  const value = JSON.parse(run.stdout) as unknown;
  expect(value).toBeTypeOf("object");
  expect(Array.isArray(value)).toBe(false);
  return value as Record<string, unknown>;
}

let skills: Map<string, SubprocessSkill>;

beforeAll(async () => {
  const loaded = await load([BUNDLED]);
  expect(loaded.report.failed).toEqual([]);
  expect(loaded.report.skipped).toEqual([]);
  skills = new Map(loaded.skills.map((skill) => [skill.name, skill]));
});

const skill = (name: string) => skills.get(name)!;

describe("bundled skills (skills/<category>/<skill>/skill.json)", () => {
  it("all load, with no failures, skips or warnings", () => {
    expect([...skills.values()].map((s) => [s.category, s.name, s.class])).toEqual([
      ["logs", "log_scan", "safe"],
      ["ops", "disk_cleaner", "mutating"],
      ["ops", "kill_process", "dangerous"],
      ["ops", "listening_ports", "safe"],
      ["system", "disk_usage", "safe"],
      ["system", "process_list", "safe"],
    ]);
    for (const s of skills.values()) {
      expect(s.warnings).toEqual([]);
      expect(s.entryPath).toBe(path.join(BUNDLED, s.category, path.basename(s.workingDirectory), "run.py"));
      expect(fs.statSync(s.entryPath).mode & 0o111).toBe(0o111);
      expect(s.envAllow).toEqual(["PATH"]);
      expect(s.timeoutSeconds).toBeGreaterThan(0);
    }
  });

  it("describe every property, and their defaults are valid args", () => {
    for (const s of skills.values()) {
      expect(undescribed(s.schema), s.name).toEqual([]);
      const required = { disk_cleaner: { path: "/tmp" }, kill_process: { pid: 2 } }[s.name] ?? {};
      expect(validateArgs(s.schema, { ...defaultsOf(s.schema), ...required }), s.name).toEqual({ ok: true });
    }
  });

  it.each(["disk_usage", "process_list", "log_scan", "listening_ports"])(
    "%s runs with its defaults: one JSON object on stdout, progress on stderr, exit 0",
    async (name) => {
      const run = await runSkill(skill(name), defaultsOf(skill(name).schema));
      expect(run.stderr).not.toBe("");
      expect(run.code, run.stderr).toBe(0);
      const result = onlyObject(run);
      const listKey = { disk_usage: "filesystems", process_list: "processes", log_scan: "patterns", listening_ports: "listeners" }[name]!;
      expect(Array.isArray(result[listKey])).toBe(true);
    },
  );

  it("disk_usage reports / in exact bytes when asked", async () => {
    const result = onlyObject(await runSkill(skill("disk_usage"), { mounts: ["/"], units: "bytes" }));
    const [root] = result.filesystems as Array<Record<string, unknown>>;
    expect(root?.mount).toBe("/");
    expect(root?.size).toBeTypeOf("number");
    expect(result.count).toBe(1);
  });

  it("disk_usage reports the filesystem's own read-only flag, not the sandbox's read-only bind", async () => {
    // Every path in the console's sandbox is a read-only bind of the host's; that must not make
    // the host's root filesystem look read-only.
    const entry = skill("disk_usage").entryPath;
    const outside = onlyObject(await runSkill(skill("disk_usage"), { mounts: ["/"] }));
    const inside = await new Promise<Run>((resolve, reject) => {
      const child = spawn("bwrap", ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--unshare-pid", "--", entry], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
      child.stdin.end("{}");
    });
    expect(inside.stderr).not.toContain("bwrap:");
    const rootOf = (result: Record<string, unknown>) =>
      (result.filesystems as Array<Record<string, unknown>>).find((row) => row.mount === "/");
    expect(rootOf(onlyObject(inside))?.read_only).toBe(rootOf(outside)?.read_only);
    expect(rootOf(outside)?.read_only).toBe(false);
  });

  it("process_list honours limit, sort_by and user", async () => {
    const result = onlyObject(await runSkill(skill("process_list"), { limit: 3, sort_by: "pid", user: "root", sample_ms: 100 }));
    const processes = result.processes as Array<{ pid: number; user: string }>;
    expect(processes).toHaveLength(3);
    expect(processes.map((p) => p.pid)).toEqual([...processes.map((p) => p.pid)].sort((a, b) => a - b));
    expect(new Set(processes.map((p) => p.user))).toEqual(new Set(["root"]));
  });

  it("log_scan refuses a missing file and a file outside /var/log, loudly", async () => {
    const [missing, outside] = await Promise.all([
      runSkill(skill("log_scan"), { path: "/var/log/no-such-file.log" }),
      runSkill(skill("log_scan"), { path: "/var/log/../../etc/shadow" }),
    ]);
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([2, "", "log_scan: /var/log/no-such-file.log does not exist\n"]);
    expect([outside.code, outside.stdout, outside.stderr]).toEqual([
      2,
      "",
      "log_scan: refusing /var/log/../../etc/shadow: only files under /var/log may be scanned (resolves to /etc/shadow)\n",
    ]);
  });

  it("disk_cleaner dry-runs by default, then deletes only stale regular files and never follows symlinks", async () => {
    const dir = makeTempDir("cleaner-");
    const old = new Date(Date.now() - 30 * 86_400_000);
    const write = (rel: string, text: string, stale: boolean) => {
      const file = path.join(dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      if (stale) fs.utimesSync(file, old, old);
      return file;
    };
    const staleLog = write("cache/a.log", "12345", true);
    const staleNested = write("cache/deep/b.bin", "123", true);
    const fresh = write("cache/c.log", "new", false);
    const victim = write("outside/victim.txt", "keep me", true);
    fs.symlinkSync(path.join(dir, "outside"), path.join(dir, "cache", "link-dir"));
    fs.symlinkSync(victim, path.join(dir, "cache", "link-file"));
    const cache = path.join(dir, "cache");

    const dry = onlyObject(await runSkill(skill("disk_cleaner"), { path: cache }));
    expect(dry).toMatchObject({ dry_run: true, freed_bytes: 8, files_deleted: 2, errors: 0 });
    expect(fs.existsSync(staleLog) && fs.existsSync(staleNested)).toBe(true);

    const real = onlyObject(await runSkill(skill("disk_cleaner"), { path: cache, dry_run: false, patterns: ["*.log"] }));
    expect(real).toMatchObject({ dry_run: false, freed_bytes: 5, files_deleted: 1 });
    expect([fs.existsSync(staleLog), fs.existsSync(staleNested), fs.existsSync(fresh), fs.existsSync(victim)]).toEqual([false, true, true, true]);
  });

  it("disk_cleaner refuses /, system folders and non-directories", async () => {
    const file = path.join(makeTempDir("cleaner-"), "file");
    fs.writeFileSync(file, "");
    const cases: Array<[string, string]> = [
      ["/", "refusing to clean / (resolves to the system folder /)"],
      ["/etc", "refusing to clean /etc (resolves to the system folder /etc)"],
      ["/proc/self", "refusing to clean /proc/self: it is inside /proc"],
      [file, `${file} is not a directory`],
    ];
    const runs = await Promise.all(cases.map(([target]) => runSkill(skill("disk_cleaner"), { path: target, dry_run: false })));
    expect(runs.map((run) => [run.code, run.stdout, run.stderr])).toEqual(cases.map(([, message]) => [2, "", `disk_cleaner: ${message}\n`]));
  });

  it("kill_process signals the named process, refuses a wrong name and never the console or its ancestors", async () => {
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    const exited = new Promise((resolve) => sleeper.on("exit", (_code, signal) => resolve(signal)));
    const wrong = await runSkill(skill("kill_process"), { pid: sleeper.pid, expect_name: "nginx" });
    expect([wrong.code, wrong.stderr]).toEqual([2, `kill_process: refusing to signal ${sleeper.pid}: its name is 'sleep', not 'nginx'\n`]);

    const run = await runSkill(skill("kill_process"), { pid: sleeper.pid, expect_name: "sleep", signal: "TERM", wait_seconds: 5 });
    expect(run.code, run.stderr).toBe(0);
    expect(onlyObject(run)).toMatchObject({ pid: sleeper.pid, name: "sleep", signal: "TERM", sent: true, exited: true });
    expect(await exited).toBe("SIGTERM");

    const self = await runSkill(skill("kill_process"), { pid: process.pid });
    expect([self.code, self.stderr]).toEqual([2, `kill_process: refusing to signal ${process.pid}: it is this skill or the console running it\n`]);
  });
});
