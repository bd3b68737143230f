import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import matter from "gray-matter";
import { afterAll, describe, expect, it } from "vitest";
import { loadNativeSkills } from "@/lib/server/skills/native/native-loader";

/**
 * The four bundled native skills of seed 004 (issue 5 point 7): their SKILL.md frontmatter, and their
 * scripts run as real child processes the way the console runs them — the interpreter with the script
 * path and argv, cwd = the skill folder, env = only the fixed system PATH.
 */

const SKILLS = fileURLToPath(new URL("../../skills", import.meta.url));
const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";
const BUNDLED = ["devops/deploy-service", "analysis/log-analyzer", "communication/daily-report", "system/health-check"];
const CLASS_WORDS = ["safe", "mutating", "dangerous"];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function makeTempDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "bundled-native-")));
  tempDirs.push(dir);
  return dir;
}

/** Runs `scripts/<script>` of `skill` (category/name) with `interpreter`, argv `args`, env `{PATH}` only. */
function runScript(skill: string, script: string, args: string[], options: { path?: string; interpreter?: string } = {}): Promise<Run> {
  const skillDir = path.join(SKILLS, skill);
  const interpreter = options.interpreter ?? (script.endsWith(".py") ? "python3" : "bash");
  return new Promise((resolve, reject) => {
    const child = spawn(interpreter, [path.join(skillDir, "scripts", script), ...args], {
      cwd: skillDir,
      env: { PATH: options.path ?? SYSTEM_PATH } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function isOnSystemPath(bin: string): boolean {
  return SYSTEM_PATH.split(":").some((dir) => {
    try {
      fs.accessSync(path.join(dir, bin), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

describe("bundled native skills: SKILL.md", () => {
  it.each(BUNDLED)("%s has a valid frontmatter, real resources and short instructions", (skill) => {
    const skillDir = path.join(SKILLS, skill);
    const parsed = matter(fs.readFileSync(path.join(skillDir, "SKILL.md"), "utf8"));
    const data = parsed.data as Record<string, unknown>;
    expect(data.name).toBe(path.basename(skill));
    expect(data.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(typeof data.description).toBe("string");
    expect((data.description as string).trim().length).toBeGreaterThan(50);
    expect((data.description as string).length).toBeLessThanOrEqual(1024);
    expect(typeof data.when_to_use).toBe("string");
    expect(CLASS_WORDS).toContain(data.class);
    expect(data.license).toBe("MIT");

    const tools = data.tools as { name: string; impl: string; class: string; description: string }[];
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(tool.impl).toMatch(/^scripts\/[a-z-]+\.(sh|py)$/);
      const file = path.join(skillDir, tool.impl);
      fs.accessSync(file, fs.constants.X_OK);
      expect(fs.readFileSync(file, "utf8").split("\n")[0]).toMatch(/^#!\/usr\/bin\/env (bash|python3)$/);
      expect(CLASS_WORDS).toContain(tool.class);
      expect(tool.description.length).toBeGreaterThan(10);
    }

    const metadata = data.metadata as { os: string[]; requires: { bins: string[]; anyBins?: string[] } };
    expect(metadata.os).toContain("linux");
    for (const bin of metadata.requires.bins) expect(isOnSystemPath(bin), `${bin} on ${SYSTEM_PATH}`).toBe(true);
    if (metadata.requires.anyBins) expect(metadata.requires.anyBins.some(isOnSystemPath)).toBe(true);

    expect(parsed.content.split("\n").length).toBeLessThan(200);
    // Every resource the instructions name exists in the folder.
    const named = parsed.content.match(/\b(?:scripts|references|templates|assets)\/[\w.-]+/g) ?? [];
    expect(named.length).toBeGreaterThan(0);
    for (const resource of named) expect(fs.existsSync(path.join(skillDir, resource)), resource).toBe(true);
  });

  it("loads through the native loader: available, no warnings, the declared classes and scripts", async () => {
    const { skills, report } = await loadNativeSkills(SKILLS, { defaultTimeoutSeconds: 30, log: () => undefined });
    expect(report.failed).toEqual([]);
    expect(report.skipped).toEqual([]);
    const summary = skills.map((skill) => ({
      name: skill.name,
      category: skill.category,
      class: skill.class,
      available: skill.available,
      warnings: skill.warnings,
      scripts: skill.resources?.scripts,
      timeoutSeconds: skill.timeoutSeconds,
    }));
    expect(summary).toEqual([
      { name: "log-analyzer", category: "analysis", class: "safe", available: true, warnings: [], scripts: ["scripts/analyze.py"], timeoutSeconds: 900 },
      { name: "daily-report", category: "communication", class: "safe", available: true, warnings: [], scripts: ["scripts/report.py"], timeoutSeconds: 60 },
      {
        name: "deploy-service",
        category: "devops",
        class: "dangerous",
        available: true,
        warnings: [],
        scripts: ["scripts/deploy-common.sh", "scripts/deploy.sh", "scripts/rollback.sh"],
        timeoutSeconds: 120,
      },
      { name: "health-check", category: "system", class: "safe", available: true, warnings: [], scripts: ["scripts/check.sh"], timeoutSeconds: 60 },
    ]);
  });

  it("declares deploy-service dangerous and the read-only skills safe", () => {
    const classOf = (skill: string) => matter(fs.readFileSync(path.join(SKILLS, skill, "SKILL.md"), "utf8")).data.class;
    expect(BUNDLED.map(classOf)).toEqual(["dangerous", "safe", "safe", "safe"]);
  });
});

describe("log-analyzer: scripts/analyze.py", () => {
  const LOG = [
    "2024-05-14 06:00:01 ERROR db: connection to 10.0.0.1:5432 refused after 30 ms",
    "2024-05-14 06:00:02 [WARN] disk 91% full",
    '{"time":"2024-05-14T06:00:03Z","level":"info","msg":"started"}',
    "2024-05-14 06:00:04 ERROR db: connection to 10.0.0.2:5432 refused after 45 ms",
    "May 14 06:00:05 web app[1]: error: user 'bob' not found",
    "2024-05-14 06:00:06 DEBUG cache warm",
    "2024-05-14 06:00:07 CRITICAL checksum 0xdeadbeef mismatch",
    "May 14 06:00:08 web app[2]: error: user 'alice' not found",
    "a line without any level",
    '{"time":"2024-05-14T06:00:10Z","level":"info","msg":"request 7c9e6679-7425-40de-944b-e07fc1f90ae7 done"}',
    "2024-05-14 06:00:11 ERROR db: connection to 10.0.0.1:5432 refused after 30 ms\r",
    "2024-05-14 06:00:12 FATAL out of memory",
    "WARNING:root:retrying job 17",
    "2024-05-14 06:00:14 [warn] slow request",
  ].join("\n");

  function writeLog(): string {
    const file = path.join(makeTempDir(), "app.log");
    fs.writeFileSync(file, `${LOG}\n`);
    return file;
  }

  it("counts lines by level and ranks the error patterns (--json)", async () => {
    const file = writeLog();
    const run = await runScript("analysis/log-analyzer", "analyze.py", [file, "--json"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`analyze: reading ${file}`);
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual({
      file,
      sizeBytes: Buffer.byteLength(`${LOG}\n`),
      lines: 14,
      levels: { FATAL: 1, CRITICAL: 1, ERROR: 5, WARNING: 3, INFO: 2, DEBUG: 1, UNKNOWN: 1 },
      errorLines: 7,
      distinctErrorPatterns: 4,
      uncountedErrorLines: 0,
      topErrors: [
        {
          pattern: "db: connection to <ip> refused after <n> ms",
          count: 3,
          firstLine: 1,
          example: "2024-05-14 06:00:01 ERROR db: connection to 10.0.0.1:5432 refused after 30 ms",
        },
        { pattern: "user <str> not found", count: 2, firstLine: 5, example: "May 14 06:00:05 web app[1]: error: user 'bob' not found" },
        { pattern: "checksum <hex> mismatch", count: 1, firstLine: 7, example: "2024-05-14 06:00:07 CRITICAL checksum 0xdeadbeef mismatch" },
        { pattern: "out of memory", count: 1, firstLine: 12, example: "2024-05-14 06:00:12 FATAL out of memory" },
      ],
    });
  });

  it("prints a text report by default and honours --top", async () => {
    const file = writeLog();
    const run = await runScript("analysis/log-analyzer", "analyze.py", [file, "--top", "1"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        `Log analysis of ${file}`,
        "Lines: 14",
        "",
        "Lines by level:",
        "  FATAL                1",
        "  CRITICAL             1",
        "  ERROR                5",
        "  WARNING              3",
        "  INFO                 2",
        "  DEBUG                1",
        "  (no level)           1",
        "",
        "Top 1 error patterns of 4 (7 error lines):",
        "  1. 3x  db: connection to <ip> refused after <n> ms",
        "     example (line 1): 2024-05-14 06:00:01 ERROR db: connection to 10.0.0.1:5432 refused after 30 ms",
        "",
      ].join("\n"),
    );
  });

  it("analyses its bundled sample log", async () => {
    const run = await runScript("analysis/log-analyzer", "analyze.py", ["assets/sample.log", "--json"]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { lines: number; errorLines: number; distinctErrorPatterns: number; topErrors: { pattern: string; count: number }[] };
    expect([result.lines, result.errorLines, result.distinctErrorPatterns]).toEqual([20, 10, 6]);
    expect(result.topErrors[0]).toMatchObject({ pattern: "[http-<n>] Connection to <ip> timed out after <n> ms", count: 3 });
  });

  it("exits 2 with a clear message for a missing file, a directory and bad args", async () => {
    const dir = makeTempDir();
    const missing = await runScript("analysis/log-analyzer", "analyze.py", [path.join(dir, "nope.log")]);
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([2, "", `analyze: no such file: ${path.join(dir, "nope.log")}\n`]);
    const directory = await runScript("analysis/log-analyzer", "analyze.py", [dir]);
    expect([directory.code, directory.stderr]).toEqual([2, `analyze: ${dir} is a directory; give the path of a log file\n`]);
    const noArgs = await runScript("analysis/log-analyzer", "analyze.py", []);
    expect(noArgs.code).toBe(2);
    expect(noArgs.stderr).toContain("the following arguments are required: log_file");
  });

  it("survives invalid UTF-8 and an empty file", async () => {
    const dir = makeTempDir();
    const binary = path.join(dir, "bad.log");
    fs.writeFileSync(binary, Buffer.concat([Buffer.from("ERROR bad byte "), Buffer.from([0xff, 0xfe]), Buffer.from(" here\n")]));
    const bad = await runScript("analysis/log-analyzer", "analyze.py", [binary, "--json"]);
    expect(bad.code).toBe(0);
    expect(JSON.parse(bad.stdout).topErrors).toEqual([{ pattern: "bad byte \ufffd\ufffd here", count: 1, firstLine: 1, example: "ERROR bad byte \ufffd\ufffd here" }]);
    const empty = path.join(dir, "empty.log");
    fs.writeFileSync(empty, "");
    const none = await runScript("analysis/log-analyzer", "analyze.py", [empty]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("No error lines (ERROR, CRITICAL, FATAL).");
  });
});

describe("deploy-service: scripts/deploy.sh and rollback.sh", () => {
  /** A folder holding a fake `ssh` that logs its argv (one line per call) to `calls` and exits `code`. */
  function fakeSsh(code: number): { bin: string; calls: string } {
    const bin = makeTempDir();
    const calls = path.join(bin, "ssh-calls");
    fs.writeFileSync(path.join(bin, "ssh"), `#!/bin/bash\necho "$*" >> ${calls}\nexit ${code}\n`, { mode: 0o755 });
    return { bin, calls };
  }

  const DEPLOY_ARGS = ["--host", "app1.example.com", "--service", "payments", "--version", "1.4.2", "--user", "deploy"];
  const SSH = "ssh -o BatchMode=yes -o ConnectTimeout=5 -p 22 deploy@app1.example.com";

  it("prints the plan by default and never calls ssh", async () => {
    const { bin, calls } = fakeSsh(0);
    const run = await runScript("devops/deploy-service", "deploy.sh", DEPLOY_ARGS, { path: `${bin}:${SYSTEM_PATH}` });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "DRY RUN: deploy payments 1.4.2 to deploy@app1.example.com (nothing is run; add --execute to run these steps)",
        "1. check that release 1.4.2 is on the host",
        `   ${SSH} 'test -d /opt/payments/releases/1.4.2'`,
        "2. check that systemd manages payments",
        `   ${SSH} 'systemctl cat payments >/dev/null'`,
        "3. remember the running release as previous",
        `   ${SSH} 'if [ -e /opt/payments/current ]; then ln -sfn "$(readlink -f /opt/payments/current)" /opt/payments/previous; fi'`,
        "4. point current at release 1.4.2",
        `   ${SSH} 'ln -sfn /opt/payments/releases/1.4.2 /opt/payments/current'`,
        "5. restart payments",
        `   ${SSH} 'systemctl restart payments'`,
        "6. verify payments is active",
        `   ${SSH} 'sleep 2 && systemctl is-active --quiet payments'`,
        "",
      ].join("\n"),
    );
    expect(fs.existsSync(calls)).toBe(false);

    const rollback = await runScript("devops/deploy-service", "rollback.sh", ["--host", "app1.example.com", "--service", "payments", "--to", "1.4.1"], {
      path: `${bin}:${SYSTEM_PATH}`,
    });
    expect(rollback.code).toBe(0);
    expect(rollback.stdout.split("\n")[0]).toBe("DRY RUN: roll payments on app1.example.com back to release 1.4.1 (nothing is run; add --execute to run these steps)");
    expect(rollback.stdout).toContain("'ln -sfn /opt/payments/releases/1.4.1 /opt/payments/current'");
    expect(fs.existsSync(calls)).toBe(false);
  });

  it("with --execute runs each step over ssh in batch mode, in order", async () => {
    const { bin, calls } = fakeSsh(0);
    const run = await runScript("devops/deploy-service", "deploy.sh", [...DEPLOY_ARGS, "--execute"], { path: `${bin}:${SYSTEM_PATH}` });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n").at(-1)).toBe("DEPLOYED: payments 1.4.2 is active on deploy@app1.example.com");
    const options = "-o BatchMode=yes -o ConnectTimeout=5 -p 22 deploy@app1.example.com";
    expect(fs.readFileSync(calls, "utf8").trim().split("\n")).toEqual([
      `${options} true`,
      `${options} test -d /opt/payments/releases/1.4.2`,
      `${options} systemctl cat payments >/dev/null`,
      `${options} if [ -e /opt/payments/current ]; then ln -sfn "$(readlink -f /opt/payments/current)" /opt/payments/previous; fi`,
      `${options} ln -sfn /opt/payments/releases/1.4.2 /opt/payments/current`,
      `${options} systemctl restart payments`,
      `${options} sleep 2 && systemctl is-active --quiet payments`,
    ]);
  });

  it("fails clearly with exit 3 when the host is unreachable or ssh is missing", async () => {
    const { bin, calls } = fakeSsh(255);
    const unreachable = await runScript("devops/deploy-service", "deploy.sh", [...DEPLOY_ARGS, "--execute"], { path: `${bin}:${SYSTEM_PATH}` });
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain("deploy.sh: cannot reach deploy@app1.example.com over ssh without a prompt");
    expect(fs.readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(1);

    // A PATH whose only program is dirname: bash is run by absolute path, ssh cannot be found.
    const bare = makeTempDir();
    fs.symlinkSync("/usr/bin/dirname", path.join(bare, "dirname"));
    const noSsh = await runScript("devops/deploy-service", "deploy.sh", [...DEPLOY_ARGS, "--execute"], { path: bare, interpreter: "/usr/bin/bash" });
    expect([noSsh.code, noSsh.stderr]).toEqual([3, "deploy.sh: ssh is not installed on this host; nothing was changed\n"]);
  });

  it("refuses values that would reach the remote shell", async () => {
    const { bin, calls } = fakeSsh(0);
    const attacks: [string, string][] = [["--host", "a;reboot"], ["--host", "-oProxyCommand=x"], ["--service", "x$(id)"], ["--version", "../../etc"], ["--user", "root x"]];
    for (const [flag, value] of attacks) {
      const args = ["--host", "h", "--service", "s", "--version", "1", flag, value, "--execute"];
      const run = await runScript("devops/deploy-service", "deploy.sh", args, { path: `${bin}:${SYSTEM_PATH}` });
      expect([run.code, run.stdout], `${flag} ${value}`).toEqual([2, ""]);
    }
    const missing = await runScript("devops/deploy-service", "deploy.sh", ["--host", "h"], { path: `${bin}:${SYSTEM_PATH}` });
    expect([missing.code, missing.stderr]).toEqual([2, "deploy.sh: --service is required\n"]);
    expect(fs.existsSync(calls)).toBe(false);
  });
});

describe("health-check: scripts/check.sh", () => {
  const LENIENT = ["--disk-threshold", "100", "--memory-threshold", "100", "--load-factor", "1000"];

  function listen(server: net.Server): Promise<number> {
    return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));
  }

  it("is healthy (exit 0) when the port listens and the URL answers, unhealthy (exit 1) when the port is closed", async () => {
    const server = http.createServer((_request, response) => response.end("ok"));
    const port = await listen(server);
    const healthy = await runScript("system/health-check", "check.sh", [...LENIENT, "--port", String(port), "--url", `http://127.0.0.1:${port}/`]);
    expect(healthy.code).toBe(0);
    const lines = healthy.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^OK {4}disk \/ \d+% used \(threshold 100%\)$/);
    expect(lines.slice(3)).toEqual([`OK    port ${port} is listening`, `OK    url http://127.0.0.1:${port}/ answered 200`, "HEALTHY: 5 ok, 0 failed, 0 skipped"]);
    await new Promise((resolve) => server.close(resolve));

    const unhealthy = await runScript("system/health-check", "check.sh", [...LENIENT, "--port", String(port)]);
    expect(unhealthy.code).toBe(1);
    expect(unhealthy.stdout.trim().split("\n").slice(3)).toEqual([`FAIL  port ${port} is not listening`, "UNHEALTHY: 3 ok, 1 failed, 0 skipped"]);
  });

  // Which service branch runs depends on the host; each has its own test, so the others show as skipped.
  const SYSTEMCTL = isOnSystemPath("systemctl");
  const SYSTEMD = fs.existsSync("/run/systemd/system");

  it.runIf(!SYSTEMCTL)("skips service checks when systemctl is not installed", async () => {
    const run = await runScript("system/health-check", "check.sh", [...LENIENT, "--service", "nginx"]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n").slice(-2)).toEqual(["SKIP  service nginx: systemctl is not installed", "HEALTHY: 3 ok, 0 failed, 1 skipped"]);
  });

  it.runIf(SYSTEMCTL && !SYSTEMD)("skips service checks without systemd", async () => {
    const run = await runScript("system/health-check", "check.sh", [...LENIENT, "--service", "nginx"]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n").slice(-2)).toEqual(["SKIP  service nginx: systemd is not running on this host", "HEALTHY: 3 ok, 0 failed, 1 skipped"]);
  });

  it.runIf(SYSTEMCTL && SYSTEMD)("asks systemctl under systemd: a unit that does not exist is inactive (exit 1)", async () => {
    const unit = "skill-console-test-no-such-unit";
    const run = await runScript("system/health-check", "check.sh", [...LENIENT, "--service", unit]);
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split("\n").slice(-2)).toEqual([`FAIL  service ${unit} is inactive`, "UNHEALTHY: 3 ok, 1 failed, 0 skipped"]);
    expect(run.stderr).toContain(`check.sh: systemctl is-active ${unit}: inactive\n`);
  });

  it("rejects bad args with exit 2", async () => {
    for (const args of [["--port", "70000"], ["--mount", "relative"], ["--url", "file:///etc/passwd"], ["--bogus"], ["--disk-threshold"]]) {
      const run = await runScript("system/health-check", "check.sh", args);
      expect([run.code, run.stdout], args.join(" ")).toEqual([2, ""]);
      expect(run.stderr).toMatch(/^check\.sh: /);
    }
  });
});

describe("daily-report: scripts/report.py", () => {
  it("prints the markdown report with every section", async () => {
    const run = await runScript("communication/daily-report", "report.py", []);
    expect(run.code).toBe(0);
    const headings = run.stdout.split("\n").filter((line) => line.startsWith("#"));
    expect(headings[0]).toBe(`# Daily report — ${os.hostname()} — ${headings[0]?.slice(-10)}`);
    expect(headings[0]).toMatch(/— \d{4}-\d{2}-\d{2}$/);
    expect(headings.slice(1)).toEqual(["## Uptime and load", "## Disk usage (/)", "## Memory", "## Top 5 processes by CPU", "## Log summary"]);
    expect(run.stdout).toContain("No log file was given (run with `--log PATH` to include one).");
    expect(run.stdout).not.toContain("$");
  });

  it("summarises a log file with --log, and exits 2 when it is missing", async () => {
    const sample = path.join(SKILLS, "analysis/log-analyzer/assets/sample.log");
    const run = await runScript("communication/daily-report", "report.py", ["--log", sample]);
    expect(run.code).toBe(0);
    const summary = run.stdout.slice(run.stdout.indexOf("## Log summary"));
    expect(summary).toContain(`\`${sample}\`: 20 lines.`);
    expect(summary).toContain("| FATAL | 1 |");
    expect(summary).toContain("- line 20: `2024-05-14 06:09:00,000 FATAL [main] out of file descriptors (limit 1024), shutting down`");

    const missing = await runScript("communication/daily-report", "report.py", ["--log", "/nonexistent/app.log"]);
    expect([missing.code, missing.stdout]).toEqual([2, ""]);
    expect(missing.stderr).toContain("report: --log: no such file: /nonexistent/app.log");
  });
});
