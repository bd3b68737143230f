import { closeSync, readFileSync, readdirSync } from "node:fs";

/** The close-on-exec bit of `flags:` in /proc/self/fdinfo/N (octal O_CLOEXEC on Linux). */
const O_CLOEXEC = 0o2000000;

/**
 * File descriptors above 2 that this process holds without close-on-exec, so every child would
 * inherit them (found in /proc/self/fdinfo). Node opens all of its own descriptors close-on-exec, so
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
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    const flags = readFdFlags(fd);
    if (flags !== null && (flags & O_CLOEXEC) === 0) inheritable.push(fd);
  }
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
