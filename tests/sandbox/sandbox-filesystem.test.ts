import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, mkdtempSync, readdirSync, renameSync, statSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildSandboxedCommand, releaseCgroupRun, type SandboxHost } from "@/lib/server/executor/sandbox";
import {
  HOME,
  declare,
  detectTestHost,
  existsOnHost,
  makeConsoleFixture,
  makeTempDir,
  removeTempDirs,
  runSandboxed,
  stdoutLines,
  uniqueMarker,
  writeFile,
} from "./sandbox-fixtures";

/**
 * Checks run inside the sandbox: each line is `<name> ok <output>` or `<name> fail <error>`, the
 * error being the part of the tool's message after its last ": " (e.g. "Read-only file system").
 */
const CHECK_SCRIPT = `
check() {
  name=$1; shift
  if out=$("$@" 2>/tmp/.err); then echo "$name ok $out"; else echo "$name fail $(sed 's/.*: //' /tmp/.err | head -n 1)"; fi
}
`;

let host: SandboxHost;
const dirs: string[] = [];

beforeAll(async () => {
  host = await detectTestHost();
  expect(host.mode).toBe("bwrap");
  expect(host.bwrapPath).toBe("/usr/bin/bwrap");
});
afterEach(() => removeTempDirs(dirs));
afterAll(async () => {
  await releaseCgroupRun(host);
});

/** Runs `script` (after CHECK_SCRIPT) with sh inside the sandbox, the fixture's skill bound at its own path. */
async function runChecks(script: string, options: { hidden: string[]; skill: string; declaration?: ReturnType<typeof declare>; env?: Record<string, string> }) {
  const run = await runSandboxed({
    host,
    request: {
      command: "/bin/sh",
      args: ["-c", CHECK_SCRIPT + script],
      cwd: options.skill,
      env: { PATH: "/usr/bin:/bin", ...options.env },
      binds: [{ path: options.skill, target: options.skill }],
      declaration: options.declaration ?? declare(),
      hiddenPaths: options.hidden,
      home: HOME,
    },
  });
  expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0, error: null });
  return Object.fromEntries(stdoutLines(run).map((line) => {
    const [name, ...rest] = line.split(" ");
    return [name, rest.join(" ")];
  }));
}

describe("sandbox filesystem: the skill folder", () => {
  it("is bound from a descriptor, readable, read-only, and the sandbox runs as nobody", async () => {
    const fixture = makeConsoleFixture(dirs);
    // Writable by anyone on the host: only the read-only bind can refuse the writes below.
    chmodSync(fixture.skill, 0o777);
    chmodSync(path.join(fixture.skill, "data.txt"), 0o666);
    const results = await runChecks(
      `check uid id -u
check gid id -g
check groups id -G
check pwd pwd
check data cat data.txt
check write sh -c 'echo x >> data.txt'
check create touch new-file
check sibling ls ${fixture.sibling}
check console ls ${fixture.console}/data`,
      { hidden: [fixture.console, "/root", "/home"], skill: fixture.skill },
    );
    expect(results).toEqual({
      uid: "ok 65534",
      gid: "ok 65534",
      groups: "ok 65534",
      pwd: `ok ${fixture.skill}`,
      data: "ok skill data",
      write: "fail Read-only file system",
      create: "fail Read-only file system",
      sibling: "fail No such file or directory",
      console: "fail No such file or directory",
    });
    expect(existsOnHost(path.join(fixture.skill, "new-file"))).toBe(false);
  });

  it("binds a lone file from a descriptor at its own path", async () => {
    const fixture = makeConsoleFixture(dirs);
    const lone = writeFile(path.join(makeTempDir(dirs), "entry.sh"), "echo lone entry\n", 0o755);
    const run = await runSandboxed({
      host,
      request: {
        command: "/bin/sh",
        args: [lone],
        cwd: fixture.skill,
        env: {},
        binds: [
          { path: fixture.skill, target: fixture.skill },
          { path: lone, target: lone },
        ],
        declaration: declare(),
        hiddenPaths: [fixture.console],
        home: HOME,
      },
    });
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0, stdout: "lone entry\n" });
  });
});

describe("sandbox filesystem: what the host keeps to itself", () => {
  it("with read \"/\" declared: hidden folders are empty, the skill is still visible and its sibling is not; root's files stay unreadable", async () => {
    const fixture = makeConsoleFixture(dirs);
    const rootOnly = writeFile(path.join(makeTempDir(dirs), "root-only"), "root secret\n", 0o600);
    const results = await runChecks(
      `check data cat data.txt
check secret cat ${fixture.secret}
check database cat ${fixture.database}
check sibling cat ${fixture.sibling}/secret.txt
check consoleList ls -A ${fixture.console}
check skillsList ls -A ${path.dirname(fixture.skill)}
check rootOnly cat ${rootOnly}
check shadow cat /etc/shadow
check rootHome ls -A /root
check homes ls -A /home
check writeHidden touch ${fixture.console}/planted
check writeRoot touch /planted-${path.basename(fixture.console)}`,
      { hidden: [fixture.console, "/root", "/home"], skill: fixture.skill, declaration: declare({ read: ["/"] }) },
    );
    expect(results).toEqual({
      data: "ok skill data",
      secret: "fail No such file or directory",
      database: "fail No such file or directory",
      sibling: "fail No such file or directory",
      // Only the mount points bwrap made on the way to the bound skill folder.
      consoleList: "ok skills",
      skillsList: "ok probe",
      rootOnly: "fail Permission denied",
      shadow: "fail Permission denied",
      rootHome: "ok ",
      homes: "ok skill",
      writeHidden: "fail Read-only file system",
      writeRoot: "fail Read-only file system",
    });
    expect(readdirSync(fixture.console).sort()).toEqual(["data", "skills"]);
  });

  it("shows a hidden file (a console secret's _FILE under /etc, say) empty and read-only, even named through a symlink, its neighbours untouched", async () => {
    const fixture = makeConsoleFixture(dirs);
    const etc = makeTempDir(dirs);
    const key = writeFile(path.join(etc, "secret-key"), "the-console-secret-key\n", 0o644);
    const token = writeFile(path.join(etc, "worker-token"), "the-worker-token\n", 0o644);
    const neighbour = writeFile(path.join(etc, "hosts"), "127.0.0.1 localhost\n", 0o644);
    symlinkSync(token, path.join(etc, "token-link"));
    const results = await runChecks(
      `check key cat ${key}
check token cat ${token}
check neighbour cat ${neighbour}
check overwrite sh -c 'echo x > ${key}'`,
      { hidden: [fixture.console, key, path.join(etc, "token-link"), path.join(etc, "missing-file")], skill: fixture.skill, declaration: declare({ read: [etc] }) },
    );
    expect(results).toEqual({ key: "ok ", token: "ok ", neighbour: "ok 127.0.0.1 localhost", overwrite: "fail Read-only file system" });
  });

  it("refuses a declared path that resolves into a hidden folder, symlink or not", async () => {
    const fixture = makeConsoleFixture(dirs);
    const outside = makeTempDir(dirs);
    symlinkSync(path.join(fixture.console, "data"), path.join(outside, "innocent"));
    const request = (read: string[]) => ({
      command: "/bin/true",
      args: [],
      cwd: "/",
      env: {},
      binds: [],
      declaration: declare({ read }),
      hiddenPaths: [fixture.console],
      home: HOME,
      allowedRoots: null,
    });
    expect(() => buildSandboxedCommand(host, request([path.join(outside, "innocent")]))).toThrow(
      `sandbox.read ${JSON.stringify(path.join(outside, "innocent"))} is inside ${JSON.stringify(fixture.console)}, which the sandbox always hides (it resolves to ${JSON.stringify(path.join(fixture.console, "data"))})`,
    );
    expect(() => buildSandboxedCommand(host, request([path.join(fixture.console, "skills")]))).toThrow("which the sandbox always hides");
    expect(() => buildSandboxedCommand(host, request([path.join(outside, "missing")]))).toThrow(`sandbox.read ${JSON.stringify(path.join(outside, "missing"))} does not exist on this host`);
  });
});

describe("sandbox filesystem: SKILL_SANDBOX_ALLOW_PATHS on real paths (a symlink cannot widen it)", () => {
  const request = (declaration: ReturnType<typeof declare>, allowedRoots: string[], hidden: string[]) => ({
    command: "/bin/true",
    args: [],
    cwd: "/",
    env: {},
    binds: [],
    declaration,
    hiddenPaths: hidden,
    home: HOME,
    allowedRoots,
  });

  it("refuses a declared read or write path that is a symlink under an allowed root to outside it", () => {
    const fixture = makeConsoleFixture(dirs);
    const allowed = makeTempDir(dirs);
    const elsewhere = makeTempDir(dirs);
    symlinkSync("/", path.join(allowed, "rootlink"));
    symlinkSync(elsewhere, path.join(allowed, "out"));
    expect(() => buildSandboxedCommand(host, request(declare({ read: [path.join(allowed, "rootlink")] }), [allowed], [fixture.console]))).toThrow(
      `sandbox.read ${JSON.stringify(path.join(allowed, "rootlink"))} lies outside SKILL_SANDBOX_ALLOW_PATHS (it resolves to "/"): a symlink cannot widen what the operator allowed`,
    );
    expect(() => buildSandboxedCommand(host, request(declare({ write: [path.join(allowed, "out")] }), [allowed], [fixture.console]))).toThrow(
      `sandbox.write ${JSON.stringify(path.join(allowed, "out"))} lies outside SKILL_SANDBOX_ALLOW_PATHS (it resolves to ${JSON.stringify(elsewhere)}): a symlink cannot widen what the operator allowed`,
    );
    // No allowed root at all (the allow-list unset, not a bundled skill): nothing may be declared.
    expect(() => buildSandboxedCommand(host, request(declare({ read: [allowed] }), [], [fixture.console]))).toThrow("lies outside SKILL_SANDBOX_ALLOW_PATHS");
    // A real folder inside the allowed root is fine, and is bound by descriptor.
    mkdirSync(path.join(allowed, "real"));
    const built = buildSandboxedCommand(host, request(declare({ read: [path.join(allowed, "real")] }), [allowed], [fixture.console]));
    expect(built.openedFds).toHaveLength(1);
    expect(built.args.join(" ")).toContain(`--ro-bind-fd 3 ${path.join(allowed, "real")}`);
    for (const fd of built.openedFds) closeSync(fd);
  });

  it("binds a device only when it is a device node on a path only root controls", () => {
    const fixture = makeConsoleFixture(dirs);
    const shm = mkdtempSync("/dev/shm/sandbox-test-");
    dirs.push(shm);
    const node = path.join(shm, "null");
    execFileSync("mknod", [node, "c", "1", "3"]);
    const folder = path.join(shm, "folder");
    mkdirSync(folder);
    const devices = (paths: string[], allowed: string[]) => request(declare({ devices: paths }), allowed, [fixture.console]);
    expect(() => buildSandboxedCommand(host, devices([node], [shm]))).toThrow(
      `sandbox.devices ${JSON.stringify(node)} lies in /dev/shm, which someone other than root can change: a device is bound by path, so only root may control it`,
    );
    expect(() => buildSandboxedCommand(host, devices([folder], [shm]))).toThrow(`sandbox.devices ${JSON.stringify(folder)} is not a device node: a device is bound by path, so only root may control it`);
    symlinkSync("/", path.join(shm, "root"));
    expect(() => buildSandboxedCommand(host, devices([path.join(shm, "root")], [shm]))).toThrow("is not a device under /dev/");
    const built = buildSandboxedCommand(host, devices(["/dev/null"], ["/dev"]));
    expect(built.args.join(" ")).toContain("--dev-bind /dev/null /dev/null");
  });

  it("lets an allowed path that is a symlink allow nothing (it could be made to point anywhere)", () => {
    const fixture = makeConsoleFixture(dirs);
    const real = makeTempDir(dirs);
    mkdirSync(path.join(real, "sub"));
    const link = `${real}-allowed-link`;
    symlinkSync(real, link);
    dirs.push(link);
    expect(() => buildSandboxedCommand(host, request(declare({ read: [path.join(link, "sub")] }), [link], [fixture.console]))).toThrow(
      `sandbox.read ${JSON.stringify(path.join(link, "sub"))} lies outside SKILL_SANDBOX_ALLOW_PATHS (it resolves to ${JSON.stringify(path.join(real, "sub"))})`,
    );
    const built = buildSandboxedCommand(host, request(declare({ read: [path.join(real, "sub")] }), [real], [fixture.console]));
    for (const fd of built.openedFds) closeSync(fd);
  });

  it("binds the folder that was checked even when its path is swapped for a symlink to a secret before the spawn", async () => {
    const fixture = makeConsoleFixture(dirs);
    const allowed = makeTempDir(dirs);
    const secret = makeTempDir(dirs);
    chmodSync(secret, 0o755);
    writeFile(path.join(secret, "secret.txt"), "the secret\n");
    const shared = path.join(allowed, "shared");
    mkdirSync(shared);
    writeFile(path.join(shared, "public.txt"), "public\n");
    const marker = uniqueMarker();
    const run = await runSandboxed({
      host,
      request: {
        command: "/bin/sh",
        args: ["-c", `ls ${shared}; echo ${marker}`],
        cwd: fixture.skill,
        env: { PATH: "/usr/bin:/bin" },
        binds: [{ path: fixture.skill, target: fixture.skill }],
        declaration: declare({ read: [shared] }),
        hiddenPaths: [fixture.console],
        home: HOME,
        allowedRoots: [allowed],
      },
      beforeSpawn: () => {
        renameSync(shared, `${shared}.moved`);
        symlinkSync(secret, shared);
      },
    });
    expect(run.outcome).toMatchObject({ end: "exited", exitCode: 0 });
    expect(stdoutLines(run)).toEqual(["public.txt", marker]);
  });
});

describe("sandbox filesystem: writes", () => {
  it("fail outside /tmp, HOME and declared write folders, and reach the host only through the latter", async () => {
    const fixture = makeConsoleFixture(dirs);
    const readable = makeTempDir(dirs);
    const writable = makeTempDir(dirs);
    chmodSync(writable, 0o777);
    const marker = uniqueMarker();
    const results = await runChecks(
      `check etc touch /etc/planted-${marker}
check usr touch /usr/planted-${marker}
check root touch /planted-${marker}
check var touch /var/planted-${marker}
check readOnly touch ${readable}/planted-${marker}
check writable sh -c 'echo from-sandbox > ${writable}/written-${marker} && stat -c %u ${writable}/written-${marker}'
check tmp sh -c 'echo x > /tmp/planted-${marker} && ls /tmp'
check home sh -c 'echo x > "$HOME/planted" && echo "$HOME"'
check tmpPrivate sh -c 'ls -A /tmp | grep -v -e "^planted-${marker}$" -e "^.err$" | wc -l'`,
      {
        hidden: [fixture.console, "/root", "/home"],
        skill: fixture.skill,
        declaration: declare({ read: [readable], write: [writable] }),
        env: { HOME: "/root" },
      },
    );
    expect(results).toEqual({
      etc: "fail Read-only file system",
      usr: "fail Read-only file system",
      root: "fail Read-only file system",
      var: "fail Read-only file system",
      readOnly: "fail Read-only file system",
      writable: "ok 65534",
      tmp: `ok planted-${marker}`,
      home: `ok ${HOME}`,
      tmpPrivate: "ok 0",
    });
    for (const planted of [`/etc/planted-${marker}`, `/usr/planted-${marker}`, `/var/planted-${marker}`, `/planted-${marker}`, `${readable}/planted-${marker}`, `/tmp/planted-${marker}`]) {
      expect(existsOnHost(planted), planted).toBe(false);
    }
    expect(statSync(path.join(writable, `written-${marker}`)).uid).toBe(65534);
  });
});
