#!/usr/bin/env python3
"""log-analyzer: count the lines of a log file by level and group its errors into patterns.

Usage: analyze.py LOG_FILE [--json] [--top N]

Reads the file as a stream (line by line, never whole), so it works on files of many gigabytes.
stdout: the report, human-readable text by default, one JSON object with --json.
stderr: progress lines and errors.
Exit 0 on success, 2 on a usage error or a file that cannot be read (missing, a directory, no permission).
Level and pattern rules: references/patterns.md.
"""
import argparse
import json
import os
import re
import sys
import time

# Printed in this order; UNKNOWN counts lines where no level was recognised.
LEVELS = ["FATAL", "CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "UNKNOWN"]
ERROR_LEVELS = {"FATAL", "CRITICAL", "ERROR"}

# Every spelling we accept, mapped to its level (compared in lower case).
LEVEL_WORDS = {
    "fatal": "FATAL", "panic": "FATAL", "emerg": "FATAL", "emergency": "FATAL", "alert": "FATAL",
    "critical": "CRITICAL", "crit": "CRITICAL",
    "error": "ERROR", "err": "ERROR", "severe": "ERROR",
    "warning": "WARNING", "warn": "WARNING",
    "info": "INFO", "information": "INFO", "informational": "INFO", "notice": "INFO",
    "debug": "DEBUG", "trace": "DEBUG", "verbose": "DEBUG", "fine": "DEBUG",
}
# pino/bunyan numeric levels.
NUMERIC_LEVELS = {10: "DEBUG", 20: "DEBUG", 30: "INFO", 40: "WARNING", 50: "ERROR", 60: "FATAL"}
JSON_LEVEL_KEYS = ("level", "severity", "lvl", "loglevel", "log.level", "levelname")
JSON_MESSAGE_KEYS = ("msg", "message", "error", "err", "event")

_WORDS = "|".join(sorted(LEVEL_WORDS, key=len, reverse=True))
# Tried in order; the first that matches decides the level, and the message is what follows it.
TEXT_LEVEL_FORMS = [
    re.compile(r"\blevel=\"?(" + _WORDS + r")\b\"?", re.IGNORECASE),            # logfmt: level=error
    re.compile(r"[\[<(](" + _WORDS + r")[\]>)]", re.IGNORECASE),                 # [ERROR] <warn> (info)
    re.compile(r"\b(FATAL|PANIC|EMERG|ALERT|CRITICAL|CRIT|ERROR|ERR|SEVERE|WARNING|WARN|INFO|NOTICE|DEBUG|TRACE)\b"),
    re.compile(r"\b(" + _WORDS + r")\s*:", re.IGNORECASE),                       # syslog-ish: "app[12]: error: …"
]

# Normalisation of a message into a pattern, applied in this order.
PLACEHOLDERS = [
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    (re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"), "<str>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"\b(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}\b"), "<ip>"),
    (re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){0,6}:(?::?[0-9a-fA-F]{1,4}){0,6}(?![\w:])"), "<ip>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b"), "<hex>"),
    (re.compile(r"(?<![A-Za-z])[-+]?\d+(?:\.\d+)?"), "<n>"),
]
WHITESPACE = re.compile(r"\s+")
LEADING_PUNCTUATION = re.compile(r"^[\s:\]\)>|-]+")

MAX_LINE_BYTES = 1 << 20          # a longer line is cut here (the rest is skipped, still one line)
MAX_PATTERNS = 100_000            # distinct patterns kept; later new ones count as "(other patterns)"
MAX_EXAMPLE_CHARS = 300
PROGRESS_EVERY_SECONDS = 2.0


def fail(message):
    print(f"analyze: {message}", file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="analyze.py", description="Count log lines by level and group errors into patterns.")
    parser.add_argument("log_file", help="path of the log file to read")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--top", type=int, default=10, help="how many error patterns to list (default 10)")
    args = parser.parse_args(argv)
    if not 1 <= args.top <= 1000:
        fail("--top must be between 1 and 1000")
    return args


def open_log(path):
    if os.path.isdir(path):
        fail(f"{path} is a directory; give the path of a log file")
    try:
        return open(path, "rb")
    except FileNotFoundError:
        fail(f"no such file: {path}")
    except PermissionError:
        fail(f"permission denied: {path}")
    except OSError as error:
        fail(f"cannot open {path}: {error.strerror}")


def level_of_json(record):
    for key in JSON_LEVEL_KEYS:
        value = record.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return NUMERIC_LEVELS.get(value, "UNKNOWN")
        if isinstance(value, str):
            return LEVEL_WORDS.get(value.strip().lower(), "UNKNOWN")
    return "UNKNOWN"


def message_of_json(record):
    for key in JSON_MESSAGE_KEYS:
        value = record.get(key)
        if isinstance(value, str) and value:
            return value
    return json.dumps(record, sort_keys=True)


def classify(line):
    """Returns (level, message): the line's level (one of LEVELS) and the text after the level marker."""
    stripped = line.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        try:
            record = json.loads(stripped)
        except ValueError:
            record = None
        if isinstance(record, dict):
            return level_of_json(record), message_of_json(record)
    for form in TEXT_LEVEL_FORMS:
        match = form.search(line)
        if match:
            return LEVEL_WORDS[match.group(1).lower()], line[match.end():]
    return "UNKNOWN", line


def pattern_of(message):
    text = LEADING_PUNCTUATION.sub("", message)
    for regex, placeholder in PLACEHOLDERS:
        text = regex.sub(placeholder, text)
    return WHITESPACE.sub(" ", text).strip() or "(empty message)"


def read_lines(handle):
    """Yields each line as text (UTF-8, invalid bytes replaced), cutting lines longer than MAX_LINE_BYTES."""
    while True:
        raw = handle.readline(MAX_LINE_BYTES)
        if not raw:
            return
        if len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while True:  # skip the rest of an over-long line
                rest = handle.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
        yield raw.decode("utf-8", errors="replace").rstrip("\r\n")


def analyze(path, handle):
    size = os.fstat(handle.fileno()).st_size
    counts = {level: 0 for level in LEVELS}
    patterns = {}  # pattern -> [count, first line number, example]
    overflow = 0
    lines = 0
    last_progress = time.monotonic()
    print(f"analyze: reading {path} ({size} bytes)", file=sys.stderr)
    for lines, line in enumerate(read_lines(handle), start=1):
        level, message = classify(line)
        counts[level] += 1
        if level in ERROR_LEVELS:
            pattern = pattern_of(message)
            entry = patterns.get(pattern)
            if entry is not None:
                entry[0] += 1
            elif len(patterns) < MAX_PATTERNS:
                patterns[pattern] = [1, lines, line[:MAX_EXAMPLE_CHARS]]
            else:
                overflow += 1
        now = time.monotonic()
        if now - last_progress >= PROGRESS_EVERY_SECONDS:
            last_progress = now
            done = handle.tell()
            share = f" ({100 * done // size}%)" if size else ""
            print(f"analyze: {lines} lines, {done} of {size} bytes{share}", file=sys.stderr)
    print(f"analyze: done, {lines} lines", file=sys.stderr)
    return size, lines, counts, patterns, overflow


def build_result(path, top, size, lines, counts, patterns, overflow):
    ranked = sorted(patterns.items(), key=lambda item: (-item[1][0], item[0]))[:top]
    return {
        "file": path,
        "sizeBytes": size,
        "lines": lines,
        "levels": counts,
        "errorLines": sum(counts[level] for level in ERROR_LEVELS),
        "distinctErrorPatterns": len(patterns),
        "uncountedErrorLines": overflow,
        "topErrors": [
            {"pattern": pattern, "count": count, "firstLine": first, "example": example}
            for pattern, (count, first, example) in ranked
        ],
    }


def print_text(result):
    out = [f"Log analysis of {result['file']}", f"Lines: {result['lines']}", "", "Lines by level:"]
    for level in LEVELS:
        label = "(no level)" if level == "UNKNOWN" else level
        out.append(f"  {label:<11} {result['levels'][level]:>10}")
    out.append("")
    if not result["topErrors"]:
        out.append("No error lines (ERROR, CRITICAL, FATAL).")
    else:
        shown = len(result["topErrors"])
        out.append(f"Top {shown} error patterns of {result['distinctErrorPatterns']} "
                   f"({result['errorLines']} error lines):")
        for rank, entry in enumerate(result["topErrors"], start=1):
            out.append(f"  {rank}. {entry['count']}x  {entry['pattern']}")
            out.append(f"     example (line {entry['firstLine']}): {entry['example']}")
    if result["uncountedErrorLines"]:
        out.append(f"  ({result['uncountedErrorLines']} error lines beyond {MAX_PATTERNS} distinct patterns were not grouped)")
    print("\n".join(out))


def main(argv):
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8", errors="replace")  # no LANG in the console's environment
    args = parse_args(argv)
    with open_log(args.log_file) as handle:
        size, lines, counts, patterns, overflow = analyze(args.log_file, handle)
    result = build_result(args.log_file, args.top, size, lines, counts, patterns, overflow)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print_text(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
