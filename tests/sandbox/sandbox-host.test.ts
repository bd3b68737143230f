import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildSandboxedCommand,
  declarationRefusal,
  detectSandboxHost,
  releaseCgroupRun,
  sandboxUnusableReason,
  type SandboxHost,
  type SandboxMode,
} from "@/lib/server/executor/sandbox";
import { DEFAULT_LIMITS, HOME, TEST_CGROUP_NAME, declare, makeTempDir, removeTempDirs, writeFile } from "./sandbox-fixtures";

const dirs: string[] = [];
const hosts: SandboxHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await releaseCgroupRun(host);
  removeTempDirs(dirs);
});

async function detect(mode: SandboxMode, extra: { uid?: number; bwrapCandidates?: string[]; preferKill?: "cgroup-v2" } = {}): Promise<SandboxHost> {
  const host = await detectSandboxHost({
    mode,
    uid: extra.uid ?? 65534,
    limits: DEFAULT_LIMITS,
    cgroupName: TEST_CGROUP_NAME,
    ...(extra.bwrapCandidates ? { bwrapCandidates: extra.bwrapCandidates } : {}),
    ...(extra.preferKill ? { preferKill: extra.preferKill } : {}),
  });
  hosts.push(host);
  return host;
}

/** This machine's memory cgroup, read independently of the code under test (the v1 mounts have root "/"). */
function ownMemoryCgroup(): string {
  const line = readFileSync("/proc/self/cgroup", "utf8").split("\n").find((entry) => entry.split(":")[1] === "memory");
  return path.join("/sys/fs/cgroup/memory", line?.split(":")[2] ?? "missing");
}

/**
 * What this machine offers (Debian 12, root, bubblewrap 0.8, hybrid cgroups: v1 memory/pids/cpu/freezer,
 * v2 with cgroup.kill but no controller): every limit is a v1 one, so calls are killed by the v1
 * freezer and join no v2 cgroup (a v2 join waits for an RCU grace period; detectLimits).
 */
function expectedHost(requested: SandboxMode): Omit<SandboxHost, "cgroups"> {
  return {
    requested,
    mode: "bwrap",
    warning: null,
    bwrapPath: "/usr/bin/bwrap",
    uid: 65534,
    gid: 65534,
    dropsPrivileges: true,
    limits: { memory: { by: "cgroup-v1", value: 1024 }, pids: { by: "cgroup-v1", value: 256 }, cpu: { by: "none", value: null } },
    kill: "cgroup-v1-freezer",
    tools: { setpriv: "/usr/bin/setpriv", prlimit: "/usr/bin/prlimit" },
  };
}

const request = { command: "/bin/true", args: [], cwd: "/", env: {}, binds: [], declaration: declare(), hiddenPaths: [], home: HOME, allowedRoots: null };

describe("detectSandboxHost", () => {
  it.each(["auto", "bwrap"] as const)("%s on this machine: bwrap as uid 65534, v1 memory and pids limits, kill by the v1 freezer", async (mode) => {
    const host = await detect(mode);
    const { cgroups, ...rest } = host;
    expect(rest).toEqual(expectedHost(mode));
    expect(cgroups).toEqual({
      name: TEST_CGROUP_NAME,
      run: expect.stringMatching(new RegExp(`^run-${process.pid}-\\d+$`)),
      own: { unified: null, memory: ownMemoryCgroup(), pids: "/sys/fs/cgroup/pids", cpu: null, freezer: "/sys/fs/cgroup/freezer" },
    });
    expect(sandboxUnusableReason(host)).toBeNull();
    // The probes removed what they made: calls create their folders on demand.
    for (const root of Object.values(cgroups.own)) if (root !== null) expect(existsSync(path.join(root, TEST_CGROUP_NAME, cgroups.run))).toBe(false);
  });

  it("preferKill cgroup-v2: calls join the v2 cgroup too and are killed by cgroup.kill, not the freezer", async () => {
    const host = await detect("bwrap", { preferKill: "cgroup-v2" });
    expect(host.kill).toBe("cgroup-v2");
    expect(host.limits).toEqual(expectedHost("bwrap").limits);
    expect(host.cgroups.own).toEqual({ unified: "/sys/fs/cgroup/unified", memory: ownMemoryCgroup(), pids: "/sys/fs/cgroup/pids", cpu: null, freezer: null });
  });

  it("a cpu limit is enforced through the v1 cpu controller", async () => {
    const host = await detectSandboxHost({ mode: "bwrap", uid: 65534, limits: { ...DEFAULT_LIMITS, cpu: 1.5 }, cgroupName: TEST_CGROUP_NAME });
    hosts.push(host);
    expect(host.limits.cpu).toEqual({ by: "cgroup-v1", value: 1.5 });
    expect(host.cgroups.own.cpu).toBe("/sys/fs/cgroup/cpu");
  });

  it("none: unsandboxed as the worker's user, said in the warning; limits still apply", async () => {
    const host = await detect("none");
    expect(host).toMatchObject({
      requested: "none",
      mode: "none",
      warning: "SKILL_SANDBOX=none: calls run unsandboxed as root",
      bwrapPath: null,
      uid: 0,
      gid: 0,
      dropsPrivileges: false,
      limits: { memory: { by: "cgroup-v1", value: 1024 }, pids: { by: "cgroup-v1", value: 256 }, cpu: { by: "none", value: null } },
      kill: "cgroup-v1-freezer",
    });
    expect(sandboxUnusableReason(host)).toBeNull();
    expect(buildSandboxedCommand(host, { ...request, env: { A: "1" } })).toEqual({ command: "/bin/true", args: [], env: { A: "1" }, extraFds: [], openedFds: [] });
  });

  it("bwrap with bwrap missing: stays bwrap, unusable, and every call fails naming the Debian package", async () => {
    const host = await detect("bwrap", { bwrapCandidates: ["/nonexistent/bwrap"] });
    const reason = "SKILL_SANDBOX=bwrap: bubblewrap is not installed (no bwrap at /nonexistent/bwrap); install the Debian package bubblewrap; every call fails until it is fixed";
    expect(host).toMatchObject({ requested: "bwrap", mode: "bwrap", bwrapPath: null, warning: reason, uid: 65534, dropsPrivileges: true });
    expect(sandboxUnusableReason(host)).toBe(reason);
    expect(declarationRefusal(host, declare())).toBe(reason);
    expect(() => buildSandboxedCommand(host, request)).toThrow(reason);
  });

  it("auto with bwrap missing: falls back to none and says so", async () => {
    const host = await detect("auto", { bwrapCandidates: ["/nonexistent/bwrap"] });
    expect(host).toMatchObject({
      requested: "auto",
      mode: "none",
      bwrapPath: null,
      uid: 0,
      dropsPrivileges: false,
      kill: "cgroup-v1-freezer",
      warning: "SKILL_SANDBOX=auto: bubblewrap is not installed (no bwrap at /nonexistent/bwrap); install the Debian package bubblewrap; calls run unsandboxed as root",
    });
    expect(sandboxUnusableReason(host)).toBeNull();
  });

  it("bwrap that exists but fails its probe: unusable, with what it said", async () => {
    const fake = writeFile(path.join(makeTempDir(dirs), "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", 0o755);
    const host = await detect("bwrap", { bwrapCandidates: [fake] });
    expect(host.bwrapPath).toBeNull();
    expect(host.warning).toBe(
      `SKILL_SANDBOX=bwrap: bwrap at ${fake} does not work here (bwrap: No permissions to create new namespace); check that user namespaces are allowed, or reinstall the Debian package bubblewrap; every call fails until it is fixed`,
    );
  });

  it("SKILL_SANDBOX_UID=0 is refused in auto and bwrap alike: it would sandbox nothing", async () => {
    for (const mode of ["auto", "bwrap"] as const) {
      const host = await detect(mode, { uid: 0 });
      expect(host.mode).toBe("bwrap");
      expect(host.bwrapPath).toBeNull();
      expect(sandboxUnusableReason(host)).toBe(
        `SKILL_SANDBOX=${mode}: SKILL_SANDBOX_UID=0 would run calls as root, which the sandbox cannot confine; set an unprivileged uid such as 65534; every call fails until it is fixed`,
      );
    }
  });

  it("rejects options that are not settings", async () => {
    await expect(detectSandboxHost({ mode: "bwrap", uid: -1, limits: DEFAULT_LIMITS, cgroupName: TEST_CGROUP_NAME })).rejects.toThrow("SKILL_SANDBOX_UID must be an integer uid, got -1");
    await expect(detectSandboxHost({ mode: "bwrap", uid: 65534, limits: { ...DEFAULT_LIMITS, pids: 0 }, cgroupName: TEST_CGROUP_NAME })).rejects.toThrow(
      "SKILL_PIDS_LIMIT must be a positive integer, got 0",
    );
    await expect(detectSandboxHost({ mode: "bwrap", uid: 65534, limits: DEFAULT_LIMITS, cgroupName: "../up" })).rejects.toThrow("cgroupName must be 1-128 letters");
  });
});
