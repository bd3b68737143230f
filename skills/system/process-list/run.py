#!/usr/bin/env python3
"""process_list: top processes by CPU or memory, read from /proc (no ps needed).

stdin: args JSON ({sort_by, limit, user, sample_ms, include_command}); stdout: one JSON object;
stderr: progress lines. CPU% is measured between two samples `sample_ms` apart (100% = one core).
Exit 0 on success, 2 on bad input or an unknown user.
"""
import json
import os
import pwd
import sys
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def fail(message):
    print(f"process_list: {message}", file=sys.stderr)
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


def read_text(path):
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def sample():
    """Returns {pid: (cpu_ticks, fields)} for every process still readable."""
    processes = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = read_text(f"/proc/{entry}/stat")
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue  # the process ended between listdir and open
        # The name is in parentheses and may itself contain spaces or parentheses.
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        rest = stat[stat.rindex(")") + 2 :].split()
        processes[int(entry)] = {
            "name": name,
            "state": rest[0],
            "ticks": int(rest[11]) + int(rest[12]),
            "rss_bytes": int(rest[21]) * PAGE_SIZE,
            "uid": uid,
        }
    return processes


def user_name(uid, cache={}):
    if uid not in cache:
        try:
            cache[uid] = pwd.getpwuid(uid).pw_name
        except KeyError:
            cache[uid] = str(uid)
    return cache[uid]


def resolve_uid(user):
    if user.isdigit():
        return int(user)
    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        fail(f"no such user {user!r}")


def mem_total():
    for line in read_text("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    return 0


def command_line(pid):
    try:
        raw = read_text(f"/proc/{pid}/cmdline")
    except OSError:
        return None
    text = raw.replace("\0", " ").strip()
    return text[:200] if text else None


def main():
    args = read_args()
    sort_by = args.get("sort_by", "cpu")
    limit = int(args.get("limit", 10))
    sample_ms = int(args.get("sample_ms", 500))
    include_command = bool(args.get("include_command", True))
    user = str(args.get("user") or "").strip()
    if sort_by not in ("cpu", "memory", "pid", "name"):
        fail(f"sort_by must be cpu, memory, pid or name, not {sort_by!r}")
    if not 1 <= limit <= 100 or not 100 <= sample_ms <= 5000:
        fail("limit must be 1..100 and sample_ms 100..5000")
    uid = resolve_uid(user) if user else None

    print(f"sampling CPU over {sample_ms} ms", file=sys.stderr, flush=True)
    first = sample()
    started = time.monotonic()
    time.sleep(sample_ms / 1000)
    second = sample()
    elapsed = time.monotonic() - started
    total_memory = mem_total()
    print(f"{len(second)} processes running", file=sys.stderr, flush=True)

    rows = []
    for pid, now in second.items():
        if uid is not None and now["uid"] != uid:
            continue
        before = first.get(pid)
        delta = now["ticks"] - before["ticks"] if before else 0
        row = {
            "pid": pid,
            "user": user_name(now["uid"]),
            "name": now["name"],
            "state": now["state"],
            "cpu_percent": round(100.0 * delta / CLOCK_TICKS / elapsed, 1),
            "memory_percent": round(100.0 * now["rss_bytes"] / total_memory, 1) if total_memory else None,
            "rss_bytes": now["rss_bytes"],
        }
        rows.append(row)

    keys = {
        "cpu": lambda row: (-row["cpu_percent"], -row["rss_bytes"], row["pid"]),
        "memory": lambda row: (-row["rss_bytes"], row["pid"]),
        "pid": lambda row: row["pid"],
        "name": lambda row: (row["name"].lower(), row["pid"]),
    }
    rows.sort(key=keys[sort_by])
    matched = len(rows)
    rows = rows[:limit]
    if include_command:
        for row in rows:
            row["command"] = command_line(row["pid"])
    print(f"returning {len(rows)} of {matched} matching processes", file=sys.stderr, flush=True)
    print(json.dumps({
        "processes": rows,
        "matched": matched,
        "total_processes": len(second),
        "sort_by": sort_by,
        "sampled_ms": round(elapsed * 1000),
        "cpu_count": os.cpu_count(),
    }))


if __name__ == "__main__":
    main()
