#!/usr/bin/env python3
"""disk_usage: df-like usage of mounted filesystems, read from /proc/self/mountinfo and statvfs.

stdin: args JSON ({mounts, min_percent, units, include_pseudo}); stdout: one JSON object;
stderr: progress lines. Exit 0 on success, 2 on bad input or when the mount table is unreadable.

`read_only` is the filesystem's own (superblock) flag, not the mount's: in the console's sandbox
every path is bind-mounted read-only, which says nothing about the host's filesystem.
"""
import json
import os
import re
import sys

PSEUDO = {
    "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts", "devtmpfs",
    "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc", "pstore", "ramfs", "rpc_pipefs",
    "securityfs", "selinuxfs", "sysfs", "tmpfs", "tracefs",
}


def fail(message):
    print(f"disk_usage: {message}", file=sys.stderr)
    sys.exit(2)


def read_args():
    raw = sys.stdin.read()
    try:
        args = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as error:
        fail(f"stdin is not JSON: {error}")
    if not isinstance(args, dict):
        fail("args must be a JSON object")
    return args


def unescape(field):
    # /proc/mounts encodes space, tab, newline and backslash as octal escapes (\040 …).
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def read_mount_table():
    """Rows of (device, mount point, fstype, filesystem read-only?) from /proc/self/mountinfo.

    Falls back to /proc/mounts (where only the mount's own flags are known) on kernels without it.
    """
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
            lines = [line.split() for line in handle if line.strip()]
        rows = []
        for fields in lines:
            # id parent major:minor root mount-point mount-options [optional…] - fstype source super-options
            if "-" not in fields[6:]:
                continue
            dash = fields.index("-", 6)
            if len(fields) < dash + 4:
                continue
            super_options = fields[dash + 3].split(",")
            rows.append((unescape(fields[dash + 2]), unescape(fields[4]), fields[dash + 1], "ro" in super_options))
        return rows
    except OSError:
        pass
    try:
        with open("/proc/mounts", encoding="utf-8", errors="replace") as handle:
            lines = [line.split() for line in handle if line.strip()]
    except OSError as error:
        fail(f"cannot read /proc/mounts: {error.strerror}")
    return [
        (unescape(f[0]), unescape(f[1]), f[2], "ro" in f[3].split(",")) for f in lines if len(f) >= 4
    ]


def human(size):
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} PiB"


def main():
    args = read_args()
    wanted = args.get("mounts") or []
    min_percent = float(args.get("min_percent", 0))
    units = args.get("units", "human")
    include_pseudo = bool(args.get("include_pseudo", False))
    if units not in ("human", "bytes"):
        fail(f"units must be human or bytes, not {units!r}")

    print("reading the mount table", file=sys.stderr, flush=True)
    seen_devices = set()
    rows = []
    for device, mount, fstype, read_only in read_mount_table():
        if wanted and mount not in wanted:
            continue
        if not wanted and not include_pseudo and fstype in PSEUDO:
            continue
        try:
            st = os.statvfs(mount)
            dev = os.stat(mount).st_dev
        except OSError as error:
            print(f"skipping {mount}: {error.strerror}", file=sys.stderr, flush=True)
            continue
        if st.f_blocks == 0:
            continue
        # A filesystem bind-mounted in several places (common in containers) is listed once.
        if not wanted and dev in seen_devices:
            continue
        seen_devices.add(dev)
        size = st.f_blocks * st.f_frsize
        free = st.f_bfree * st.f_frsize
        available = st.f_bavail * st.f_frsize
        used = size - free
        # Same rule as df: the share of the space ordinary users can have.
        base = used + available
        percent = round(100.0 * used / base, 1) if base else 0.0
        inode_percent = round(100.0 * (st.f_files - st.f_ffree) / st.f_files, 1) if st.f_files else None
        print(f"checked {mount} ({fstype}): {percent}% used", file=sys.stderr, flush=True)
        if percent < min_percent:
            continue
        sizes = {"size": size, "used": used, "available": available}
        if units == "human":
            sizes = {key: human(value) for key, value in sizes.items()}
        rows.append({
            "mount": mount,
            "device": device,
            "fstype": fstype,
            **sizes,
            "use_percent": percent,
            "inodes_use_percent": inode_percent,
            "read_only": read_only,
        })

    missing = [mount for mount in wanted if mount not in {row["mount"] for row in rows}]
    rows.sort(key=lambda row: row["use_percent"], reverse=True)
    print(f"{len(rows)} filesystem(s) reported", file=sys.stderr, flush=True)
    print(json.dumps({
        "filesystems": rows,
        "count": len(rows),
        "fullest": rows[0]["mount"] if rows else None,
        "not_reported": missing,
        "units": units,
    }))


if __name__ == "__main__":
    main()
