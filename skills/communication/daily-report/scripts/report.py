#!/usr/bin/env python3
"""daily-report: builds a markdown daily report of this host from templates/daily-report.md.

Usage: report.py [--log LOG_FILE]
stdout: the report (markdown). stderr: progress and errors. Writes nothing to disk.
Sections: uptime and load, disk usage of /, memory, top 5 processes by CPU, and (with --log) a summary
of that log file: lines by level and the last error lines.
Exit 0 on success, 2 on a usage error or an unreadable --log file, 1 when the template is missing.
"""
import argparse
import os
import re
import socket
import string
import subprocess
import sys
import time
from collections import deque

SKILL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(SKILL_DIR, "templates", "daily-report.md")
LEVELS = ["FATAL", "CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG"]
LEVEL_WORDS = {
    "FATAL": "FATAL", "PANIC": "FATAL", "CRITICAL": "CRITICAL", "CRIT": "CRITICAL", "ERROR": "ERROR",
    "ERR": "ERROR", "WARNING": "WARNING", "WARN": "WARNING", "INFO": "INFO", "NOTICE": "INFO",
    "DEBUG": "DEBUG", "TRACE": "DEBUG",
}
LEVEL_PATTERN = re.compile(
    r"\b(?:level=\"?)?(fatal|panic|critical|crit|error|err|warning|warn|info|notice|debug|trace)\b", re.IGNORECASE
)
MAX_LINE_BYTES = 1 << 20


def fail(message, code=2):
    print(f"report: {message}", file=sys.stderr)
    sys.exit(code)


def human_bytes(count):
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.1f} {unit}" if unit != "B" else f"{int(value)} B"
        value /= 1024
    return f"{count} B"


def human_duration(seconds):
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    return f"{days} days, {hours} h {minutes} min" if days else f"{hours} h {minutes} min"


def read_text(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def uptime_and_load():
    try:
        uptime = human_duration(float(read_text("/proc/uptime").split()[0]))
    except OSError:
        uptime = "unknown (/proc/uptime not readable)"
    try:
        load = " / ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        load = "unknown"
    return uptime, load, os.cpu_count() or 1


def disk_of_root():
    stats = os.statvfs("/")
    total = stats.f_blocks * stats.f_frsize
    free = stats.f_bavail * stats.f_frsize
    used = total - stats.f_bfree * stats.f_frsize
    share = 100 * used / (used + free) if used + free else 0
    return "\n".join([
        "| Size | Used | Available | Use% |",
        "|------|------|-----------|------|",
        f"| {human_bytes(total)} | {human_bytes(used)} | {human_bytes(free)} | {share:.0f}% |",
    ])


def memory():
    try:
        fields = {}
        for line in read_text("/proc/meminfo").splitlines():
            name, _, value = line.partition(":")
            fields[name] = int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return "Memory figures are not available (/proc/meminfo not readable)."
    total, available = fields.get("MemTotal", 0), fields.get("MemAvailable", 0)
    swap_total, swap_free = fields.get("SwapTotal", 0), fields.get("SwapFree", 0)
    share = 100 * (total - available) / total if total else 0
    return "\n".join([
        "| Total | Used | Available | Use% | Swap used |",
        "|-------|------|-----------|------|-----------|",
        f"| {human_bytes(total)} | {human_bytes(total - available)} | {human_bytes(available)} | {share:.0f}% "
        f"| {human_bytes(swap_total - swap_free)} of {human_bytes(swap_total)} |",
    ])


def top_processes():
    command = ["ps", "-eo", "pid=,user=,pcpu=,pmem=,comm=", "--sort=-pcpu"]
    try:
        listing = subprocess.run(command, capture_output=True, text=True, encoding="utf-8", errors="replace",
                                 timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError) as error:
        print(f"report: ps failed: {error}", file=sys.stderr)
        return "Process list not available (ps failed)."
    rows = ["| PID | User | CPU% | MEM% | Command |", "|-----|------|------|------|---------|"]
    for line in listing.splitlines()[:5]:
        parts = line.split(None, 4)
        if len(parts) == 5:
            rows.append("| " + " | ".join(part.replace("|", "\\|") for part in parts) + " |")
    return "\n".join(rows)


def log_summary(path):
    if path is None:
        return "No log file was given (run with `--log PATH` to include one)."
    if os.path.isdir(path):
        fail(f"--log {path} is a directory; give the path of a log file")
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        fail(f"--log: no such file: {path}")
    except OSError as error:
        fail(f"--log: cannot open {path}: {error.strerror}")
    counts = {level: 0 for level in LEVELS}
    unknown = 0
    last_errors = deque(maxlen=3)
    lines = 0
    print(f"report: reading {path}", file=sys.stderr)
    with handle:
        for raw in iter(lambda: handle.readline(MAX_LINE_BYTES), b""):
            lines += 1
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            match = LEVEL_PATTERN.search(line)
            if match is None:
                unknown += 1
                continue
            level = LEVEL_WORDS[match.group(1).upper()]
            counts[level] += 1
            if level in ("FATAL", "CRITICAL", "ERROR"):
                last_errors.append((lines, line[:200]))
    out = [f"`{path}`: {lines} lines.", "", "| Level | Lines |", "|-------|-------|"]
    out += [f"| {level} | {counts[level]} |" for level in LEVELS]
    out.append(f"| (no level) | {unknown} |")
    if last_errors:
        out += ["", "Last error lines:", ""]
        out += [f"- line {number}: `{text.replace('`', chr(39))}`" for number, text in last_errors]
    else:
        out += ["", "No error lines."]
    return "\n".join(out)


def main(argv):
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8", errors="replace")  # no LANG in the console's environment
    parser = argparse.ArgumentParser(prog="report.py", description="Print a markdown daily report of this host.")
    parser.add_argument("--log", metavar="LOG_FILE", help="also summarise this log file")
    args = parser.parse_args(argv)
    try:
        template = string.Template(read_text(TEMPLATE))
    except OSError as error:
        fail(f"cannot read the template {TEMPLATE}: {error.strerror}", 1)
    now = time.localtime()
    uptime, load, cores = uptime_and_load()
    print("report: collecting host figures", file=sys.stderr)
    report = template.safe_substitute(
        host=socket.gethostname(),
        date=time.strftime("%Y-%m-%d", now),
        generated_at=time.strftime("%Y-%m-%d %H:%M:%S %Z", now),
        uptime=uptime,
        load=load,
        cores=cores,
        disk=disk_of_root(),
        memory=memory(),
        processes=top_processes(),
        log_summary=log_summary(args.log),
    )
    sys.stdout.write(report if report.endswith("\n") else report + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
