import { closeSync, readFileSync, readdirSync } from "node:fs";

/** The close-on-exec bit of `flags:` in /proc/self/fdinfo/N (octal O_CLOEXEC on Linux). */
const O_CLOEXEC = 0o2000000;

/**
 * Descriptor numbers already found close-on-exec and open ever since (seen in every listing since):
 * they are not read again, which saves reading one fdinfo file per open descriptor per call (about
 * 1 ms per call at 16 calls at once; even a readlink of each costs half of that). A number that was
 * closed, even briefly, drops out and is read again once it reappears in a listing. Only native code
 * could swap a descriptor without close-on-exec in under a number between two listings, and the
 * worker loads none; an inherited one is never taken for close-on-exec, so it is reported every time.
 */
const closeOnExec = new Set<number>();

/**
 * File descriptors above 2 that this process holds without close-on-exec, so every child would
 * inherit them (found in /proc/self/fd and /proc/self/fdinfo). Node opens all of its own descriptors close-on-exec, so
 * these came from whatever started the worker; inside a sandbox one such descriptor (a directory, a
 * socket) would be a way out of it (DESIGN.md "Workers and the sandbox": nothing else of the host).
 * Returns [] when /proc cannot be read. Never throws.
 */
export function findInheritableFds(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const inheritable: number[] = [];
  const open = new Set<number>();
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    open.add(fd);
    if (closeOnExec.has(fd)) continue;
    // Null: closed since the listing (the listing's own descriptor, a call that just ended).
    const flags = readFdFlags(fd);
    if (flags === null) continue;
    if ((flags & O_CLOEXEC) === 0) inheritable.push(fd);
    else closeOnExec.add(fd);
  }
  for (const fd of closeOnExec) if (!open.has(fd)) closeOnExec.delete(fd);
  return inheritable;
}

/**
 * Closes the descriptors findInheritableFds reports; a worker calls it once at start, before any
 * call (buildSandboxedCommand refuses to run while one is open). Returns the fds it closed. Never throws.
 */
export function closeInheritableFds(): number[] {
  const closed: number[] = [];
  for (const fd of findInheritableFds()) {
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // Closed meanwhile: nothing is left to inherit.
    }
  }
  return closed;
}

function readFdFlags(fd: number): number | null {
  try {
    const match = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
    return match?.[1] === undefined ? null : parseInt(match[1], 8);
  } catch {
    return null;
  }
}
