import { createHash } from "node:crypto";
import fs, { type Stats } from "node:fs";
import path from "node:path";
import { WorkSlices } from "./work-slices";

/**
 * Bounds of a skill folder the console will bind a call to (DESIGN.md "Workers and the sandbox": the
 * digest covers the skill's whole folder, bounded). Past any of them the skill cannot be hashed, so it
 * cannot run; the error names the limit.
 */
export interface SkillFolderLimits {
  /** Most entries (files, folders and links together). */
  maxEntries: number;
  /** Most bytes of regular files together. */
  maxBytes: number;
  /** Deepest folder nesting below the skill folder. */
  maxDepth: number;
}

/** Default bounds: 2,000 entries, 64 MiB, 16 levels (SKILL_FOLDER_MAX_FILES / SKILL_FOLDER_MAX_BYTES). */
export const DEFAULT_SKILL_FOLDER_LIMITS: SkillFolderLimits = { maxEntries: 2000, maxBytes: 64 * 1024 * 1024, maxDepth: 16 };

/**
 * One entry of a skill folder, by its path relative to the folder (`/` separators, no leading `./`).
 * A file carries its SHA-256 and executable bit (and, when read with bytes, its content); a link its
 * target text, never followed.
 */
export type SkillFolderEntry =
  | { path: string; kind: "dir" }
  | { path: string; kind: "file"; executable: boolean; size: number; sha256: string; bytes?: Buffer }
  | { path: string; kind: "link"; target: string };

/** The content of a skill folder: its entries sorted by path, and the bytes of its files in all. */
export interface SkillFolderContent {
  entries: SkillFolderEntry[];
  bytes: number;
}

/** A skill folder that cannot be hashed: too big, too deep, a FIFO or device inside, or unreadable. */
export class SkillFolderError extends Error {}

/** Largest read of one system call, in bytes: a large file is read in pieces, yielding between slices. */
const READ_CHUNK_BYTES = 1024 * 1024;


/**
 * Reads a skill folder for its digest and, with `keepBytes`, for a snapshot of exactly the hashed bytes
 * (DESIGN.md "Workers and the sandbox": the worker runs the call from a private read-only snapshot of
 * the bytes it hashed; `keepBytes` may also choose files by relative path). Walks `folder` in lexical order without following links (a link is recorded by
 * its target text); every folder is opened `O_DIRECTORY | O_NOFOLLOW` and what it holds is named
 * through that descriptor, so a folder swapped for a symlink mid-walk is refused, never followed out
 * of the skill; each file is opened `O_NOFOLLOW | O_NONBLOCK` and checked on the open descriptor,
 * so a FIFO, device or link swapped in is refused instead of read or followed, and its bytes are hashed
 * from that descriptor. The folder itself must be a real folder at its own realpath, before and after
 * the walk (a folder or a parent swapped for a link is refused). The system calls are synchronous, in
 * slices of at most SLICE_MS (4 ms) between yields to the event loop: a small folder costs no
 * thread-pool round trips, a large one never blocks the event loop for long. Throws
 * SkillFolderError naming the limit (`… holds more than 2000 entries (SKILL_FOLDER_MAX_FILES)`), the
 * special file, or the file system's error. `skip` leaves out an entry (and all below it) by relative
 * path, before it is even examined (a pack's `.git` folder).
 */
export async function readSkillFolder(
  folder: string,
  options: { keepBytes?: boolean | ((relative: string) => boolean); limits?: SkillFolderLimits; skip?: (relative: string) => boolean } = {},
): Promise<SkillFolderContent> {
  const limits = options.limits ?? DEFAULT_SKILL_FOLDER_LIMITS;
  const keep = typeof options.keepBytes === "function" ? options.keepBytes : () => options.keepBytes === true;
  const slices = new WorkSlices();
  const entries: SkillFolderEntry[] = [];
  let bytes = 0;
  // Every folder is read through a descriptor opened O_NOFOLLOW on it, and everything in it is named
  // relative to that descriptor (/proc/self/fd/<fd>/<name>): a folder swapped for a symlink after its
  // lstat is refused at the open (or seen as another inode), never followed out of the skill.
  const visit = async (dirFd: number, relative: string, depth: number): Promise<void> => {
    if (depth > limits.maxDepth) throw new SkillFolderError(`${folder} nests deeper than ${limits.maxDepth} levels: too deep to bind a call to`);
    const dir = `/proc/self/fd/${dirFd}`;
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch (error) {
      throw new SkillFolderError(`${path.join(folder, relative)} cannot be listed: ${codeOf(error)}`);
    }
    for (const name of names) {
      if (entries.length >= limits.maxEntries) {
        throw new SkillFolderError(`${folder} holds more than ${limits.maxEntries} entries (SKILL_FOLDER_MAX_FILES): too many to bind a call to`);
      }
      await slices.check();
      const full = `${dir}/${name}`;
      const rel = relative === "" ? name : `${relative}/${name}`;
      if (options.skip?.(rel)) continue;
      let stats: Stats;
      try {
        stats = fs.lstatSync(full);
      } catch (error) {
        throw new SkillFolderError(`${rel} in ${folder} cannot be read: ${codeOf(error)}`);
      }
      if (stats.isDirectory()) {
        entries.push({ path: rel, kind: "dir" });
        const childFd = openFolder(full, `${rel} in ${folder}`, stats);
        try {
          await visit(childFd, rel, depth + 1);
        } finally {
          fs.closeSync(childFd);
        }
      } else if (stats.isSymbolicLink()) {
        let target: string;
        try {
          target = fs.readlinkSync(full);
        } catch (error) {
          throw new SkillFolderError(`${rel} in ${folder} cannot be read: ${codeOf(error)}`);
        }
        entries.push({ path: rel, kind: "link", target });
      } else if (stats.isFile()) {
        const file = await readRegularFile(full, rel, folder, { maxBytes: limits.maxBytes, used: bytes }, keep(rel), slices);
        bytes += file.size;
        entries.push(file);
      } else {
        throw new SkillFolderError(`${rel} in ${folder} is not a regular file, folder or link (a FIFO, socket or device): a skill folder may not hold one`);
      }
    }
  };
  assertRealFolder(folder);
  const rootFd = openFolder(folder, `the skill folder ${folder}`, null);
  try {
    // The descriptor must name the folder itself: a parent swapped for a link between the check and the open shows here.
    const opened = fs.readlinkSync(`/proc/self/fd/${rootFd}`);
    if (opened !== folder) throw new SkillFolderError(`the skill folder ${folder} now resolves to ${opened}: a folder on its path was replaced by a link`);
    await visit(rootFd, "", 0);
  } finally {
    fs.closeSync(rootFd);
  }
  // Checked again after the walk: a folder swapped for a link while it was read is refused, not hashed.
  assertRealFolder(folder);
  return { entries, bytes };
}

/**
 * Opens a folder O_DIRECTORY | O_NOFOLLOW (a symlink put in its place fails the open) and, when its
 * lstat was taken before, checks the descriptor is that same folder (same device and inode). Throws
 * SkillFolderError naming `label`.
 */
function openFolder(full: string, label: string, seen: Stats | null): number {
  let fd: number;
  try {
    fd = fs.openSync(full, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") throw new SkillFolderError(`${label} is no longer a folder (a link or a file was put in its place)`);
    throw new SkillFolderError(`${label} cannot be opened: ${codeOf(error)}`);
  }
  if (seen !== null) {
    const now = fs.fstatSync(fd);
    if (now.dev !== seen.dev || now.ino !== seen.ino) {
      fs.closeSync(fd);
      throw new SkillFolderError(`${label} was replaced while it was read`);
    }
  }
  return fd;
}

/** Refuses a skill folder that is a link, or whose path no longer resolves to itself (a parent swapped for a link). */
function assertRealFolder(folder: string): void {
  let stats;
  let real: string;
  try {
    stats = fs.lstatSync(folder);
    real = fs.realpathSync.native(folder);
  } catch (error) {
    throw new SkillFolderError(`the skill folder ${folder} cannot be read: ${codeOf(error)}`);
  }
  if (!stats.isDirectory()) throw new SkillFolderError(`the skill folder ${folder} is no longer a folder (a link or a file was put in its place)`);
  if (real !== folder) throw new SkillFolderError(`the skill folder ${folder} now resolves to ${real}: a folder on its path was replaced by a link`);
}

/**
 * Reads one regular file through one descriptor: checks it is still regular, hashes (and keeps) its
 * bytes, in READ_CHUNK_BYTES pieces with a yield whenever the slice is used up.
 */
async function readRegularFile(
  full: string,
  rel: string,
  folder: string,
  budget: { maxBytes: number; used: number },
  keepBytes: boolean,
  slices: WorkSlices,
): Promise<Extract<SkillFolderEntry, { kind: "file" }>> {
  const tooMuch = () => new SkillFolderError(`${folder} holds more than ${budget.maxBytes} bytes of files (SKILL_FOLDER_MAX_BYTES): too much to bind a call to`);
  let fd: number;
  try {
    fd = fs.openSync(full, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw new SkillFolderError(`${rel} in ${folder} cannot be opened: ${codeOf(error)}`);
  }
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw new SkillFolderError(`${rel} in ${folder} is no longer a regular file`);
    if (budget.used + stats.size > budget.maxBytes) throw tooMuch();
    // Exactly the size seen on the descriptor: a file growing while it is read is refused, never read on.
    const content = Buffer.alloc(stats.size);
    const hash = createHash("sha256");
    let filled = 0;
    while (filled < content.length) {
      const bytesRead = fs.readSync(fd, content, filled, Math.min(READ_CHUNK_BYTES, content.length - filled), filled);
      if (bytesRead === 0) throw new SkillFolderError(`${rel} in ${folder} shrank while it was read`);
      hash.update(content.subarray(filled, filled + bytesRead));
      filled += bytesRead;
      if (filled < content.length) await slices.check();
    }
    if (fs.readSync(fd, Buffer.alloc(1), 0, 1, filled) !== 0) throw new SkillFolderError(`${rel} in ${folder} grew while it was read`);
    const sha256 = hash.digest("hex");
    const executable = (stats.mode & 0o111) !== 0;
    return { path: rel, kind: "file", executable, size: content.length, sha256, ...(keepBytes ? { bytes: content } : {}) };
  } catch (error) {
    if (error instanceof SkillFolderError) throw error;
    throw new SkillFolderError(`${rel} in ${folder} cannot be read: ${codeOf(error)}`);
  } finally {
    fs.closeSync(fd);
  }
}

function codeOf(error: unknown): string {
  if (error instanceof SkillFolderError) return error.message;
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
