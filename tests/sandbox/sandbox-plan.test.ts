import { describe, expect, it } from "vitest";
import { cgroupJoinHint, locateOwnCgroups } from "@/lib/server/executor/sandbox/cgroup-placement";
import type { HostRootLayout } from "@/lib/server/executor/sandbox/host-root-layout";
import { planMountArgs, type MountPlanInput } from "@/lib/server/executor/sandbox/sandbox-mounts";

const MERGED_USR: HostRootLayout = {
  systemEntries: [
    { path: "/bin", symlink: "usr/bin" },
    { path: "/sbin", symlink: "usr/sbin" },
    { path: "/lib", symlink: "usr/lib" },
    { path: "/lib64", symlink: "usr/lib64" },
  ],
  resolvConfTarget: null,
};

const SYSTEM = [
  ["--ro-bind", "/usr", "/usr"],
  ["--symlink", "usr/bin", "/bin"],
  ["--symlink", "usr/sbin", "/sbin"],
  ["--symlink", "usr/lib", "/lib"],
  ["--symlink", "usr/lib64", "/lib64"],
  ["--ro-bind", "/etc", "/etc"],
  ["--proc", "/proc"],
  ["--dev", "/dev"],
  ["--tmpfs", "/tmp"],
];

function plan(overrides: Partial<MountPlanInput>): string[][] {
  const { args } = planMountArgs({ layout: MERGED_USR, read: [], write: [], devices: [], hidden: [], home: "/home/skill", hostPids: false, snapshot: [], ...overrides });
  // Regroup the flat list into one array per option, for readable expectations.
  const groups: string[][] = [];
  const arity: Record<string, number> = { "--ro-bind": 2, "--bind": 2, "--dev-bind": 2, "--symlink": 2, "--ro-bind-fd": 2, "--proc": 1, "--dev": 1, "--tmpfs": 1, "--remount-ro": 1 };
  for (let i = 0; i < args.length; ) {
    const flag = args[i] ?? "";
    const count = arity[flag] ?? 0;
    groups.push(args.slice(i, i + 1 + count));
    i += 1 + count;
  }
  return groups;
}

describe("planMountArgs", () => {
  it("the default view: system mounts, private /tmp and home, the snapshot, then everything read-only", () => {
    expect(plan({ hidden: ["/srv/console", "/root"], snapshot: [{ fd: 3, target: "/srv/console/skills/a" }] })).toEqual([
      ...SYSTEM,
      ["--tmpfs", "/home/skill"],
      // Not visible (nothing binds /srv or /root): no mask; bwrap makes the mount point in its root tmpfs.
      ["--ro-bind-fd", "3", "/srv/console/skills/a"],
      ["--remount-ro", "/"],
    ]);
  });

  it('read "/": the host root first, the sandbox\'s own mounts over it, hidden paths masked outermost first, snapshot inside a mask', () => {
    expect(
      plan({
        read: [{ source: "/", target: "/" }],
        hidden: ["/home", "/root", "/srv/console", "/srv/console/data", "/tmp/skill-console-state"],
        snapshot: [{ fd: 3, target: "/srv/console/skills/a" }],
      }),
    ).toEqual([
      ["--ro-bind", "/", "/"],
      ["--ro-bind", "/usr", "/usr"],
      ["--ro-bind", "/etc", "/etc"],
      ["--proc", "/proc"],
      ["--dev", "/dev"],
      ["--tmpfs", "/tmp"],
      ["--tmpfs", "/home"],
      ["--tmpfs", "/root"],
      ["--tmpfs", "/home/skill"],
      ["--tmpfs", "/srv/console"],
      ["--ro-bind-fd", "3", "/srv/console/skills/a"],
      ["--remount-ro", "/home"],
      ["--remount-ro", "/root"],
      ["--remount-ro", "/srv/console"],
      ["--remount-ro", "/"],
    ]);
  });

  it("declared binds go after the system mounts they lie in; a hidden path under /usr is masked after /usr", () => {
    expect(
      plan({
        read: [{ source: "/var/log", target: "/var/log" }],
        write: [{ source: "/var/cache/app", target: "/var/cache/app" }],
        devices: [{ source: "/dev/fuse", target: "/dev/fuse" }],
        hidden: ["/usr/local/skills", "/var/log/console"],
        hostPids: true,
      }),
    ).toEqual([
      ["--ro-bind", "/usr", "/usr"],
      ["--symlink", "usr/bin", "/bin"],
      ["--symlink", "usr/sbin", "/sbin"],
      ["--symlink", "usr/lib", "/lib"],
      ["--symlink", "usr/lib64", "/lib64"],
      ["--ro-bind", "/etc", "/etc"],
      ["--ro-bind", "/proc", "/proc"],
      ["--dev", "/dev"],
      ["--tmpfs", "/tmp"],
      ["--tmpfs", "/home/skill"],
      ["--ro-bind", "/var/log", "/var/log"],
      ["--dev-bind", "/dev/fuse", "/dev/fuse"],
      ["--bind", "/var/cache/app", "/var/cache/app"],
      ["--tmpfs", "/usr/local/skills"],
      ["--tmpfs", "/var/log/console"],
      ["--remount-ro", "/usr/local/skills"],
      ["--remount-ro", "/var/log/console"],
      ["--remount-ro", "/"],
    ]);
  });

  it("a symlinked declaration binds its real source at the declared place and masks hidden paths where they show", () => {
    const groups = plan({ read: [{ source: "/data/shared", target: "/srv/shared" }], hidden: ["/data/shared/console"] });
    expect(groups).toContainEqual(["--ro-bind", "/data/shared", "/srv/shared"]);
    expect(groups).toContainEqual(["--tmpfs", "/srv/shared/console"]);
    expect(groups).toContainEqual(["--remount-ro", "/srv/shared/console"]);
  });

  it("binds resolv.conf's target when /etc/resolv.conf leads outside /etc, and folders that are not symlinks", () => {
    const layout: HostRootLayout = { systemEntries: [{ path: "/bin", folder: "/bin" }, { path: "/lib64", symlink: "usr/lib64" }], resolvConfTarget: "/run/systemd/resolve/stub-resolv.conf" };
    const groups = plan({ layout });
    expect(groups.slice(0, 5)).toEqual([
      ["--ro-bind", "/usr", "/usr"],
      ["--ro-bind", "/bin", "/bin"],
      ["--symlink", "usr/lib64", "/lib64"],
      ["--ro-bind", "/etc", "/etc"],
      ["--proc", "/proc"],
    ]);
    expect(groups).toContainEqual(["--ro-bind", "/run/systemd/resolve/stub-resolv.conf", "/run/systemd/resolve/stub-resolv.conf"]);
  });
});

const THIS_HOST_MOUNTINFO = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`;

describe("locateOwnCgroups", () => {
  it("this host's hybrid layout: memory under /process_api/<id>, the rest at their roots", () => {
    const procCgroup = "9:name=systemd:/\n8:pids:/\n6:freezer:/\n4:memory:/process_api/abc\n2:cpuacct:/\n1:cpu:/\n0::/\n";
    expect(locateOwnCgroups(procCgroup, THIS_HOST_MOUNTINFO)).toEqual({
      unified: "/sys/fs/cgroup/unified",
      memory: "/sys/fs/cgroup/memory/process_api/abc",
      pids: "/sys/fs/cgroup/pids",
      cpu: "/sys/fs/cgroup/cpu",
      freezer: "/sys/fs/cgroup/freezer",
    });
  });

  it("co-mounted controllers, a pure v2 host, a container's partial mount, and an escaped mount point", () => {
    const mountInfo = `30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct
31 25 0:27 /docker/c1 /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory
32 25 0:28 / /sys/fs/my\\040cgroups rw - cgroup2 cgroup2 rw,nsdelegate
`;
    const procCgroup = "5:cpu,cpuacct:/user.slice\n4:memory:/docker/c1/worker\n0::/system.slice/worker.service\n";
    expect(locateOwnCgroups(procCgroup, mountInfo)).toEqual({
      unified: "/sys/fs/my cgroups/system.slice/worker.service",
      memory: "/sys/fs/cgroup/memory/worker",
      pids: null,
      cpu: "/sys/fs/cgroup/cpu,cpuacct/user.slice",
      freezer: null,
    });
  });

  it("a cgroup outside the mounted part of its hierarchy cannot be placed", () => {
    const mountInfo = "31 25 0:27 /docker/c1 /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
    expect(locateOwnCgroups("4:memory:/docker/c2\n", mountInfo).memory).toBeNull();
    expect(locateOwnCgroups("4:memory:/docker/c10\n", mountInfo).memory).toBeNull();
  });
});

describe("cgroupJoinHint (a cgroup join waits for an RCU grace period without favordynmods)", () => {
  it("names the cgroup2 mount and the option when it is missing, and says nothing when it is set or there is no cgroup2", () => {
    expect(cgroupJoinHint(THIS_HOST_MOUNTINFO)).toBe(
      "/sys/fs/cgroup/unified (cgroup2) is mounted without favordynmods, so each call waits for an RCU grace period (up to ~25 ms on a busy host) to join its cgroup; " +
        "`mount -o remount,favordynmods /sys/fs/cgroup/unified` (or the kernel option cgroup_favordynmods=true) removes that wait",
    );
    expect(cgroupJoinHint(THIS_HOST_MOUNTINFO.replace("cgroup2 cgroup2 rw", "cgroup2 cgroup2 rw,favordynmods"))).toBeNull();
    expect(cgroupJoinHint("35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n")).toBeNull();
  });
});
