#!/usr/bin/env python3
"""listening_ports: TCP listeners and bound UDP sockets, read from /proc/net/{tcp,tcp6,udp,udp6}.

stdin: args JSON ({protocols, include_loopback, port_range: {from, to}, resolve_processes});
stdout: one JSON object; stderr: progress lines. Exit 0 on success, 2 on bad input.
"""
import ipaddress
import json
import os
import socket
import struct
import sys

TCP_LISTEN = "0A"
UDP_UNCONNECTED = "07"


def fail(message):
    print(f"listening_ports: {message}", file=sys.stderr)
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


def decode_address(hex_address):
    """/proc/net addresses are the kernel's in-memory words, printed as hex in host byte order."""
    raw = bytes.fromhex(hex_address)
    words = struct.unpack(f"={len(raw) // 4}I", raw)
    packed = b"".join(struct.pack("!I", word) for word in words)
    return str(ipaddress.ip_address(packed))


def process_name(pid):
    """The process's command line (arguments joined by spaces, cut at 200 characters), else its
    15-character kernel name; /proc/<pid>/comm alone turns "next-server (v16.4.6)" into "next-server (v1"."""
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        command = handle.read().rstrip(b"\0").replace(b"\0", b" ").decode("utf-8", errors="replace")
    if command:
        return command[:200]
    with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as handle:
        return handle.read().strip()


def socket_owners():
    """Maps socket inode -> (pid, process name) for every process whose fds we may read."""
    owners = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            name = process_name(pid)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                owners.setdefault(int(target[8:-1]), (int(pid), name))
    return owners


def read_table(protocol, family):
    path = f"/proc/net/{protocol}{'6' if family == socket.AF_INET6 else ''}"
    try:
        with open(path, encoding="ascii") as handle:
            next(handle)
            rows = [line.split() for line in handle]
    except FileNotFoundError:
        return []  # e.g. IPv6 disabled
    sockets = []
    for fields in rows:
        local, remote, state, inode = fields[1], fields[2], fields[3], int(fields[9])
        if protocol == "tcp" and state != TCP_LISTEN:
            continue
        if protocol == "udp" and (state != UDP_UNCONNECTED or not remote.endswith(":0000")):
            continue
        address, port = local.split(":")
        sockets.append({
            "protocol": protocol + ("6" if family == socket.AF_INET6 else ""),
            "address": decode_address(address),
            "port": int(port, 16),
            "inode": inode,
        })
    return sockets


def main():
    args = read_args()
    protocols = args.get("protocols", ["tcp", "udp"])
    include_loopback = bool(args.get("include_loopback", True))
    port_range = args.get("port_range") or {}
    low, high = int(port_range.get("from", 1)), int(port_range.get("to", 65535))
    resolve = bool(args.get("resolve_processes", True))
    if not isinstance(protocols, list) or not protocols or any(p not in ("tcp", "udp") for p in protocols):
        fail("protocols must be a non-empty list of tcp and/or udp")
    if low > high:
        fail(f"port_range.from ({low}) is greater than port_range.to ({high})")

    found = []
    for protocol in protocols:
        for family in (socket.AF_INET, socket.AF_INET6):
            found.extend(read_table(protocol, family))
    print(f"read {len(found)} bound socket(s) from /proc/net", file=sys.stderr, flush=True)

    owners = socket_owners() if resolve else {}
    if resolve:
        print(f"matched sockets against {len(owners)} open socket descriptor(s)", file=sys.stderr, flush=True)

    listeners = []
    seen = set()
    for entry in found:
        if not low <= entry["port"] <= high:
            continue
        if not include_loopback and ipaddress.ip_address(entry["address"]).is_loopback:
            continue
        key = (entry["protocol"], entry["address"], entry["port"])
        if key in seen:
            continue  # SO_REUSEPORT groups show one line per socket
        seen.add(key)
        pid, name = owners.get(entry.pop("inode"), (None, None))
        listeners.append({**entry, "pid": pid, "process": name})
    listeners.sort(key=lambda row: (row["port"], row["protocol"], row["address"]))
    print(f"{len(listeners)} listener(s) reported", file=sys.stderr, flush=True)
    print(json.dumps({
        "listeners": listeners,
        "count": len(listeners),
        "ports": sorted({row["port"] for row in listeners}),
    }))


if __name__ == "__main__":
    main()
