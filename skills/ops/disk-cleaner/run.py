#!/usr/bin/env python3
"""disk_cleaner: delete regular files older than N days under a folder (seed 000's example skill).

stdin: args JSON ({path, dry_run, older_than_days, patterns, max_files}); stdout: one JSON object
{freed_bytes, files_deleted, …} (in a dry run, what *would* be freed and deleted); stderr: progress.
Safety: only regular files are touched, symlinks are never followed (a symlink itself is left alone),
the walk stays on the folder's filesystem, directories are never removed, and system folders
themselves are refused. Everything below the folder is reached through open directory descriptors
(openat/fstatat/unlinkat, never a path), so a user who swaps a sub-folder for a symlink while the
cleaner runs (it runs as root, often on /tmp) cannot steer it outside the folder.
Exit 2 on a refused or bad request, 0 otherwise (per-file errors are counted).
"""
import fnmatch
import json
import os
import stat
import sys
import time

PROTECTED = {
    "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt",
    "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/usr/bin", "/usr/lib", "/usr/local",
    "/usr/sbin", "/usr/share", "/var", "/var/lib",
}
FORBIDDEN_TREES = ("/proc", "/sys", "/dev", "/boot", "/etc", "/usr/bin", "/usr/sbin", "/usr/lib", "/bin", "/sbin", "/lib")
SAMPLE_SIZE = 20


def fail(message):
    print(f"disk_cleaner: {message}", file=sys.stderr)
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


def check_folder(path):
    if not isinstance(path, str) or not os.path.isabs(path):
        fail("path must be an absolute path")
    real = os.path.realpath(path)
    if real in PROTECTED:
        fail(f"refusing to clean {path} (resolves to the system folder {real})")
    for tree in FORBIDDEN_TREES:
        if real == tree or real.startswith(tree + "/"):
            fail(f"refusing to clean {path}: it is inside {tree}")
    if not os.path.exists(real):
        fail(f"{path} does not exist")
    if not os.path.isdir(real):
        fail(f"{path} is not a directory")
    return real


# Sub-folders are opened relative to their parent's descriptor and never through a symlink; O_NONBLOCK
# keeps a FIFO swapped in from blocking the open.
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
MAX_DEPTH = 256


def open_root(real):
    """Opens the checked folder and makes sure the descriptor is that folder (not one swapped in since)."""
    try:
        fd = os.open(real, DIR_FLAGS)
    except OSError as error:
        fail(f"cannot open {real}: {error.strerror}")
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        opened = real
    if opened != real:
        os.close(fd)
        fail(f"refusing to clean {real}: it changed while it was being checked (now {opened})")
    return fd


def walk(dir_fd, display, device, depth=0):
    """Yields (display path, directory descriptor, sorted non-directory names) for the open folder and,
    depth first in name order, each sub-folder on `device`, each opened relative to its parent."""
    try:
        entries = sorted(os.scandir(dir_fd), key=lambda entry: entry.name)
    except OSError:
        return
    files, subdirs = [], []
    for entry in entries:
        try:
            (subdirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
        except OSError:
            continue
    yield display, dir_fd, files
    if depth >= MAX_DEPTH:
        return
    for name in subdirs:
        try:
            fd = os.open(name, DIR_FLAGS, dir_fd=dir_fd)
        except OSError:
            continue  # gone, or no longer a real folder (a symlink swapped in is refused by O_NOFOLLOW)
        try:
            if os.fstat(fd).st_dev == device:
                yield from walk(fd, os.path.join(display, name), device, depth + 1)
        finally:
            os.close(fd)


def main():
    args = read_args()
    root = check_folder(args.get("path"))
    dry_run = args.get("dry_run", True) is not False
    days = int(args.get("older_than_days", 7))
    patterns = args.get("patterns") or []
    max_files = int(args.get("max_files", 10000))
    if days < 1 or max_files < 1:
        fail("older_than_days and max_files must be at least 1")
    cutoff = time.time() - days * 86400
    root_fd = open_root(root)
    device = os.fstat(root_fd).st_dev
    verb = "would delete" if dry_run else "deleting"
    print(f"{'dry run: ' if dry_run else ''}cleaning files older than {days} day(s) under {root}", file=sys.stderr, flush=True)

    matched = freed = deleted = errors = 0
    sample = []
    truncated = False
    for directory, dir_fd, files in walk(root_fd, root, device):
        for name in files:
            if patterns and not any(fnmatch.fnmatch(name, pattern) for pattern in patterns):
                continue
            full = os.path.join(directory, name)
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_mtime >= cutoff:
                continue
            if matched >= max_files:
                truncated = True
                break
            matched += 1
            if not dry_run:
                try:
                    os.unlink(name, dir_fd=dir_fd)  # unlinkat: this folder's entry, never through a symlink
                except OSError as error:
                    errors += 1
                    print(f"cannot delete {full}: {error.strerror}", file=sys.stderr, flush=True)
                    continue
            freed += info.st_size
            deleted += 1
            if len(sample) < SAMPLE_SIZE:
                sample.append({"path": full, "bytes": info.st_size, "modified": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(info.st_mtime))})
                print(f"{verb} {full} ({info.st_size} bytes)", file=sys.stderr, flush=True)
        if truncated:
            break
    os.close(root_fd)

    print(f"{'would free' if dry_run else 'freed'} {freed} bytes in {deleted} file(s)", file=sys.stderr, flush=True)
    print(json.dumps({
        "path": root,
        "dry_run": dry_run,
        "freed_bytes": freed,
        "files_deleted": deleted,
        "errors": errors,
        "truncated": truncated,
        "older_than_days": days,
        "sample": sample,
    }))


if __name__ == "__main__":
    main()
