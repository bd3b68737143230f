import { createHash } from "node:crypto";
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** Bytes read at a time while hashing. */
const CHUNK_BYTES = 1024 * 1024;

/** Error thrown when a file a digest covers is not a regular file any more (a FIFO or device swapped in). */
export class NotARegularFileError extends Error {}

/**
 * SHA-256 (hex) of a regular file's content, read synchronously in 1 MiB chunks (the digest check just
 * before a spawn must have no await before it). The file is opened non-blocking (`O_NONBLOCK`: opening
 * a FIFO with no writer returns at once instead of freezing the console's one thread) and checked on
 * the open descriptor, so a FIFO, device or directory swapped in after any earlier check is refused
 * with NotARegularFileError rather than read. `noFollow` also refuses a final symlink (ELOOP). Throws
 * the file system's error when it cannot be opened.
 */
export function sha256OfRegularFile(file: string, options: { noFollow?: boolean } = {}): string {
  const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | (options.noFollow ? fsConstants.O_NOFOLLOW : 0));
  try {
    if (!fstatSync(fd).isFile()) throw new NotARegularFileError(`${file} is not a regular file`);
    const hash = createHash("sha256");
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
    return hash.digest("hex");
  } finally {
    closeSync(fd);
  }
}

/** Bounds of folderFingerprint: beyond them the folder is too big to bind a call to. */
export const FOLDER_FINGERPRINT_LIMITS = { maxEntries: 2000, maxBytes: 64 * 1024 * 1024, maxDepth: 8 } as const;

/**
 * SHA-256 (hex) over everything a native skill's script may load from its `scripts/` folder (review
 * 5: an approved `run.sh` that sources `lib.sh` must not run a changed `lib.sh`): every entry below
 * `folder`, sorted by path, as `path`, its kind and, for regular files, the SHA-256 of the content; a
 * symlink contributes its target text and, when the target is a regular file, that file's content
 * hash (never followed into folders); FIFOs, sockets and devices contribute only their kind (never
 * opened). A missing folder fingerprints as empty. Throws Error when the folder holds more than
 * FOLDER_FINGERPRINT_LIMITS (entries, bytes of regular files, depth), or the file system's error.
 */
export function folderFingerprint(folder: string): string {
  const lines: string[] = [];
  let entries = 0;
  let bytes = 0;
  const fileHash = (file: string, size: number): string => {
    bytes += size;
    if (bytes > FOLDER_FINGERPRINT_LIMITS.maxBytes) throw new Error(`${folder} holds more than ${FOLDER_FINGERPRINT_LIMITS.maxBytes} bytes: too much to bind a call to`);
    return sha256OfRegularFile(file, { noFollow: true });
  };
  const visit = (dir: string, relative: string, depth: number): void => {
    if (depth > FOLDER_FINGERPRINT_LIMITS.maxDepth) throw new Error(`${folder} nests deeper than ${FOLDER_FINGERPRINT_LIMITS.maxDepth} levels: too deep to bind a call to`);
    for (const name of readdirSync(dir).sort()) {
      entries += 1;
      if (entries > FOLDER_FINGERPRINT_LIMITS.maxEntries) throw new Error(`${folder} holds more than ${FOLDER_FINGERPRINT_LIMITS.maxEntries} entries: too many to bind a call to`);
      const full = path.join(dir, name);
      const rel = relative === "" ? name : `${relative}/${name}`;
      const stats = lstatSync(full);
      if (stats.isDirectory()) {
        lines.push(`${JSON.stringify(rel)} dir`);
        visit(full, rel, depth + 1);
      } else if (stats.isFile()) {
        lines.push(`${JSON.stringify(rel)} file ${fileHash(full, stats.size)}`);
      } else if (stats.isSymbolicLink()) {
        let target = "";
        try {
          const real = realpathSync(full);
          const targetStats = statSync(real);
          if (targetStats.isFile()) target = ` ${fileHash(real, targetStats.size)}`;
        } catch {
          // A dangling link counts by its target text alone.
        }
        lines.push(`${JSON.stringify(rel)} link ${JSON.stringify(readlinkSync(full))}${target}`);
      } else {
        lines.push(`${JSON.stringify(rel)} special`);
      }
    }
  };
  let root: string;
  try {
    root = realpathSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return createHash("sha256").update("").digest("hex");
    throw error;
  }
  visit(root, "", 0);
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}
