import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { isPathWithin } from "./sandbox-paths";

/** Top-level folders of the host that hold programs and libraries besides /usr. */
const SYSTEM_ENTRIES = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] as const;

/** How one of /bin, /sbin, /lib* appears on the host: a symlink into /usr (merged /usr), or a folder of its own. */
export type SystemEntry = { path: string; symlink: string } | { path: string; folder: string };

/** What the sandbox mirrors of the host's root besides /usr and /etc. */
export interface HostRootLayout {
  /** The entries of SYSTEM_ENTRIES that exist, in that order. */
  systemEntries: SystemEntry[];
  /** Real path of /etc/resolv.conf when it is a symlink to a file outside /etc (systemd-resolved), else null. */
  resolvConfTarget: string | null;
}

/** Longest a layout read is reused, in ms, even while / and /etc look unchanged (a symlink further down may have moved). */
const LAYOUT_REUSE_MS = 10_000;

let lastRead: { key: string; at: number; layout: HostRootLayout } | null = null;

/**
 * Reads how the host lays out /bin, /sbin, /lib* and /etc/resolv.conf (DESIGN.md "Workers and the
 * sandbox": read-only /usr, /bin, /lib*, /etc). A symlink whose real target lies in /usr is kept as
 * the same symlink (its text, e.g. `usr/bin`); any other entry is bound from its real folder. Missing
 * entries are left out. The last read is reused (every sandboxed call asks) while / and /etc keep
 * their inode, mtime and ctime — adding, removing or replacing an entry changes them — for at most
 * LAYOUT_REUSE_MS. Only root can change either folder. Never throws.
 */
export function readHostRootLayout(): HostRootLayout {
  const key = layoutKey();
  const now = performance.now();
  if (key !== null && lastRead !== null && lastRead.key === key && now - lastRead.at < LAYOUT_REUSE_MS) return lastRead.layout;
  const systemEntries: SystemEntry[] = [];
  for (const entry of SYSTEM_ENTRIES) {
    const described = describeEntry(entry);
    if (described !== null) systemEntries.push(described);
  }
  const layout = { systemEntries, resolvConfTarget: resolvConfTarget() };
  lastRead = key === null ? null : { key, at: now, layout };
  return layout;
}

function layoutKey(): string | null {
  try {
    return ["/", "/etc"]
      .map((folder) => {
        const stats = lstatSync(folder, { bigint: true });
        return `${stats.dev}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`;
      })
      .join("/");
  } catch {
    return null;
  }
}

function describeEntry(entry: string): SystemEntry | null {
  try {
    const real = realpathSync.native(entry);
    if (!statSync(real).isDirectory()) return null;
    if (lstatSync(entry).isSymbolicLink() && isPathWithin(real, "/usr")) return { path: entry, symlink: readlinkSync(entry) };
    return { path: entry, folder: real };
  } catch {
    return null;
  }
}

function resolvConfTarget(): string | null {
  try {
    if (!lstatSync("/etc/resolv.conf").isSymbolicLink()) return null;
    const real = realpathSync.native("/etc/resolv.conf");
    return isPathWithin(real, "/etc") ? null : real;
  } catch {
    return null;
  }
}
