#!/usr/bin/env python3
"""kill_process: send one signal to one process, then report whether it exited.

stdin: args JSON ({pid, signal, expect_name, wait_seconds}); stdout: one JSON object; stderr:
progress. Refuses (exit 2) pid 1, this script, the console that runs it and every ancestor, a pid
that does not exist, or a process whose name differs from `expect_name`. Exit 1 if the kernel
refuses the signal (e.g. permission denied).
"""
import json
import os
import signal
import sys
import time

SIGNALS = {name: getattr(signal, f"SIG{name}") for name in ("TERM", "INT", "HUP", "QUIT", "KILL", "USR1", "USR2", "STOP", "CONT")}


def fail(message, code=2):
    print(f"kill_process: {message}", file=sys.stderr)
    sys.exit(code)


def read_args():
    raw = sys.stdin.read()
    try:
        args = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as error:
        fail(f"stdin is not JSON: {error}")
    if not isinstance(args, dict):
        fail("args must be a JSON object")
    return args


def stat_fields(pid):
    """(name, state, parent pid) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    name = text[text.index("(") + 1 : text.rindex(")")]
    rest = text[text.rindex(")") + 2 :].split()
    return name, rest[0], int(rest[1])


def ancestors():
    """This process and every ancestor up to pid 1: signalling any of them would hit the console."""
    chain = set()
    pid = os.getpid()
    while pid > 0 and pid not in chain:
        chain.add(pid)
        fields = stat_fields(pid)
        if fields is None:
            break
        pid = fields[2]
    return chain


def gone(pid):
    fields = stat_fields(pid)
    return fields is None or fields[1] in ("Z", "X")


def main():
    args = read_args()
    pid = args.get("pid")
    signal_name = args.get("signal", "TERM")
    expect_name = args.get("expect_name")
    wait_seconds = float(args.get("wait_seconds", 5))
    if not isinstance(pid, int) or isinstance(pid, bool) or pid < 2:
        fail("pid must be an integer of at least 2 (pid 1 is never signalled)")
    if signal_name not in SIGNALS:
        fail(f"signal must be one of {', '.join(SIGNALS)}")
    if not 0 <= wait_seconds <= 30:
        fail("wait_seconds must be between 0 and 30")
    if pid in ancestors():
        fail(f"refusing to signal {pid}: it is this skill or the console running it")
    fields = stat_fields(pid)
    if fields is None:
        fail(f"no process with pid {pid}")
    name = fields[0]
    if expect_name is not None and name != expect_name:
        fail(f"refusing to signal {pid}: its name is {name!r}, not {expect_name!r}")

    print(f"sending SIG{signal_name} to {pid} ({name})", file=sys.stderr, flush=True)
    try:
        os.kill(pid, SIGNALS[signal_name])
    except ProcessLookupError:
        fail(f"process {pid} exited before the signal was sent")
    except PermissionError:
        fail(f"not permitted to signal {pid} ({name}): this skill runs as uid {os.getuid()} (the sandbox's SKILL_SANDBOX_UID) and may signal only that uid's processes", code=1)

    exited = None
    waited = 0.0
    if wait_seconds > 0 and signal_name not in ("STOP", "CONT"):
        started = time.monotonic()
        exited = gone(pid)
        while not exited and time.monotonic() - started < wait_seconds:
            time.sleep(0.1)
            exited = gone(pid)
        waited = round(time.monotonic() - started, 2)
        print(f"process {pid} {'exited' if exited else 'is still running'} after {waited} s", file=sys.stderr, flush=True)
    print(json.dumps({"pid": pid, "name": name, "signal": signal_name, "sent": True, "exited": exited, "waited_seconds": waited}))


if __name__ == "__main__":
    main()
