#!/usr/bin/env python3
"""log_scan: count pattern matches in a log file under /var/log and return sample lines.

stdin: args JSON ({path, patterns, regex, case_sensitive, max_matches, window: {tail_lines,
max_line_length}}); stdout: one JSON object; stderr: progress, one line per pattern.
Refuses (exit 2, message on stderr) a path outside /var/log, a missing or unreadable file, or a bad
regular expression; nothing is refused silently.
"""
import collections
import gzip
import json
import os
import re
import sys
import time

ALLOWED_ROOT = os.path.realpath("/var/log")
FALLBACKS = ["/var/log/syslog", "/var/log/messages", "/var/log/dpkg.log", "/var/log/apt/history.log"]


def fail(message):
    print(f"log_scan: {message}", file=sys.stderr)
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


def choose_path(requested):
    if requested:
        return requested
    for candidate in FALLBACKS:
        if os.path.isfile(candidate):
            print(f"no path given; using {candidate}", file=sys.stderr, flush=True)
            return candidate
    fail(f"no path given and none of {', '.join(FALLBACKS)} exists")


def check_path(path):
    if not os.path.isabs(path):
        fail(f"path must be absolute: {path}")
    real = os.path.realpath(path)
    if os.path.commonpath([real, ALLOWED_ROOT]) != ALLOWED_ROOT:
        fail(f"refusing {path}: only files under {ALLOWED_ROOT} may be scanned (resolves to {real})")
    if not os.path.exists(real):
        fail(f"{path} does not exist")
    if not os.path.isfile(real):
        fail(f"{path} is not a regular file")
    if not os.access(real, os.R_OK):
        fail(f"{path} is not readable")
    return real


def count_lines(path):
    """How many lines a plain file has (a last line without a newline counts), reading it in blocks."""
    total, last = 0, b"\n"
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            total += block.count(b"\n")
            last = block[-1:]
    return total + (0 if last == b"\n" else 1)


def tail_plain(path, count):
    """The last `count` lines of a plain file, reading backwards in blocks (cheap on huge logs)."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        position = handle.tell()
        data = b""
        while position > 0 and data.count(b"\n") <= count:
            step = min(65536, position)
            position -= step
            handle.seek(position)
            data = handle.read(step) + data
    lines = data.decode("utf-8", errors="replace").splitlines()
    return lines[-count:]


def read_lines(path, tail):
    """The lines to scan and the file line number of the first of them (1-based), so samples cite real lines."""
    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as handle:
            if not tail:
                return [line.rstrip("\n") for line in handle], 1
            total = 0
            window = collections.deque(maxlen=tail)
            for line in handle:
                total += 1
                window.append(line.rstrip("\n"))
            return list(window), total - len(window) + 1
    if tail:
        lines = tail_plain(path, tail)
        return lines, count_lines(path) - len(lines) + 1
    with open(path, encoding="utf-8", errors="replace") as handle:
        return [line.rstrip("\n") for line in handle], 1


def main():
    args = read_args()
    patterns = args.get("patterns", ["error", "fail"])
    use_regex = bool(args.get("regex", False))
    case_sensitive = bool(args.get("case_sensitive", False))
    max_matches = int(args.get("max_matches", 20))
    window = args.get("window") or {}
    tail = int(window.get("tail_lines", 5000))
    max_length = int(window.get("max_line_length", 400))
    if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) and p for p in patterns):
        fail("patterns must be a non-empty list of non-empty strings")

    flags = 0 if case_sensitive else re.IGNORECASE
    matchers = []
    for pattern in patterns:
        try:
            matchers.append(re.compile(pattern if use_regex else re.escape(pattern), flags))
        except re.error as error:
            fail(f"bad regular expression {pattern!r}: {error}")

    path = check_path(choose_path(args.get("path")))
    scope = f"last {tail} lines" if tail else "whole file"
    print(f"scanning {path} ({scope})", file=sys.stderr, flush=True)
    try:
        lines, first_line = read_lines(path, tail)
    except (OSError, EOFError) as error:
        fail(f"cannot read {path}: {error}")
    print(f"read {len(lines)} lines", file=sys.stderr, flush=True)

    results = []
    for pattern, matcher in zip(patterns, matchers):
        # A short pause per pattern keeps the live timeline readable in the console's demo.
        time.sleep(0.2)
        count = 0
        samples = []
        for number, line in enumerate(lines, start=first_line):
            if matcher.search(line):
                count += 1
                if len(samples) < max_matches:
                    samples.append({"line": number, "text": line[:max_length]})
        print(f"pattern {pattern!r}: {count} match(es)", file=sys.stderr, flush=True)
        results.append({"pattern": pattern, "matches": count, "samples": samples})

    print(json.dumps({
        "path": path,
        "lines_scanned": len(lines),
        "first_line": first_line,
        "window": {"tail_lines": tail, "max_line_length": max_length},
        "total_matches": sum(result["matches"] for result in results),
        "patterns": results,
    }))


if __name__ == "__main__":
    main()
