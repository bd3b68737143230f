import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { Transform, Writable, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract, type Header as TarHeader } from "tar-stream";
import { readSkillFolder, SkillFolderError, type SkillFolderEntry } from "../skills/skill-folder";
import { digestListOf, PACK_SIGNATURE_FILE, sha256Text, type DigestListEntry } from "./pack-signature";

/** Why a pack cannot be staged (or an installed one read back): the message is the refusal shown. */
export class PackError extends Error {}

/** A pack or upload past PACK_MAX_BYTES (answered 413, not 400). */
export class PackTooLargeError extends PackError {}

/** Bounds of a pack's content (PACK_MAX_BYTES; the entry and depth bounds are fixed). */
export interface PackLimits {
  maxBytes: number;
  maxEntries: number;
  maxDepth: number;
}

/** Default bounds besides the bytes: 10,000 entries, 32 levels. */
export const PACK_ENTRY_LIMITS = { maxEntries: 10_000, maxDepth: 32 } as const;

/** The entries of a pack's content with every file's bytes, sorted by path: what is staged, digested and written. */
export type PackEntry =
  | { path: string; kind: "dir" }
  | { path: string; kind: "file"; executable: boolean; sha256: string; bytes: Buffer }
  | { path: string; kind: "link"; target: string };

/**
 * Checks a pack's entries before anything is written (DESIGN.md "Skill packs": no path escapes, no links
 * out, no device files): every path relative, of plain segments (no `.`, `..`, empty segment, NUL or
 * control character), unique, not below a link; every link's target relative and, resolved from the
 * link's folder, inside the pack; within the limits. Returns the entries sorted by path; throws
 * PackError naming the first offending entry. Pure.
 */
export function checkPackEntries(entries: readonly PackEntry[], limits: PackLimits): PackEntry[] {
  if (entries.length > limits.maxEntries) throw new PackError(`the pack holds more than ${limits.maxEntries} entries`);
  const seen = new Map<string, PackEntry["kind"]>();
  let bytes = 0;
  for (const entry of entries) {
    const segments = entry.path.split("/");
    if (entry.path === "" || entry.path.startsWith("/") || segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
      throw new PackError(`${JSON.stringify(entry.path)} is not a plain relative path inside the pack (absolute, '..' or an empty segment)`);
    }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(entry.path)) throw new PackError(`${JSON.stringify(entry.path)} has a control character in its name`);
    if (segments.length > limits.maxDepth) throw new PackError(`${entry.path} nests deeper than ${limits.maxDepth} levels`);
    if (seen.has(entry.path)) throw new PackError(`${entry.path} appears twice in the pack`);
    seen.set(entry.path, entry.kind);
    if (entry.kind === "file") {
      bytes += entry.bytes.length;
      if (bytes > limits.maxBytes) throw new PackTooLargeError(`the pack holds more than ${limits.maxBytes} bytes (PACK_MAX_BYTES)`);
    }
    if (entry.kind === "link") {
      if (entry.target === "" || path.posix.isAbsolute(entry.target)) throw new PackError(`${entry.path} is a link to ${JSON.stringify(entry.target)}: links must be relative and stay inside the pack`);
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(entry.path), entry.target));
      if (resolved === ".." || resolved.startsWith("../") || resolved === ".") throw new PackError(`${entry.path} is a link to ${JSON.stringify(entry.target)}, which leads out of the pack`);
    }
  }
  for (const entry of entries) {
    const segments = entry.path.split("/");
    for (let depth = 1; depth < segments.length; depth++) {
      const above = seen.get(segments.slice(0, depth).join("/"));
      if (above === "link" || above === "file") throw new PackError(`${entry.path} lies below ${segments.slice(0, depth).join("/")}, which is a ${above}`);
    }
  }
  return [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/** Whether a relative path is a `.git` folder (a repository's own data, never part of a pack). Pure. */
export function isGitFolder(relative: string): boolean {
  return relative === ".git" || relative.endsWith("/.git");
}

/** Drops every `.git` folder and what is in it, whatever the source (a folder's reader skips them too). Pure. */
export function withoutGitFolders(entries: readonly PackEntry[]): PackEntry[] {
  return entries.filter((entry) => !entry.path.split("/").includes(".git"));
}

/** The digest-list entries of a pack's content: every file and link but the top-level signature file. Pure. */
export function digestEntriesOf(entries: readonly (PackEntry | SkillFolderEntry)[]): DigestListEntry[] {
  const listed: DigestListEntry[] = [];
  for (const entry of entries) {
    if (entry.path === PACK_SIGNATURE_FILE || entry.kind === "dir") continue;
    if (entry.kind === "link") listed.push({ path: entry.path, kind: "l", sha256: sha256Text(entry.target) });
    else listed.push({ path: entry.path, kind: entry.executable ? "x" : "f", sha256: entry.sha256 });
  }
  return listed;
}

/** The digest list of a pack's content (digestListOf over digestEntriesOf). Pure. */
export function packDigestList(entries: readonly (PackEntry | SkillFolderEntry)[]): string {
  return digestListOf(digestEntriesOf(entries));
}

/** A file entry made from bytes (a generated pack.json, say). */
export function fileEntry(relative: string, bytes: Buffer, executable = false): PackEntry {
  return { path: relative, kind: "file", executable, sha256: createHash("sha256").update(bytes).digest("hex"), bytes };
}

/**
 * Reads a local folder as pack entries, with every file's bytes (readSkillFolder: bounded, links
 * recorded not followed, a FIFO or device refused, a folder swapped for a link refused). `.git` folders
 * are left out, and whatever `skip` names (relative paths). Throws PackError with the reason.
 */
export async function readFolderEntries(folder: string, limits: PackLimits, skip?: (relative: string) => boolean): Promise<PackEntry[]> {
  try {
    const content = await readSkillFolder(folder, {
      keepBytes: true,
      limits: { maxEntries: limits.maxEntries, maxBytes: limits.maxBytes, maxDepth: limits.maxDepth },
      skip: (relative) => isGitFolder(relative) || (skip?.(relative) ?? false),
    });
    return content.entries.map((entry): PackEntry => (entry.kind === "file" ? { path: entry.path, kind: "file", executable: entry.executable, sha256: entry.sha256, bytes: entry.bytes ?? Buffer.alloc(0) } : entry));
  } catch (error) {
    if (error instanceof SkillFolderError) throw new PackError(error.message.replace("SKILL_FOLDER_MAX_FILES", "pack entry limit").replace("to bind a call to", "to stage"));
    throw error;
  }
}

/**
 * Reads a tar stream (gzipped when `gzip`) into pack entries, refusing what a pack may not hold as it
 * comes (DESIGN.md "Skill packs"): hard links, devices, FIFOs, more than `limits.maxBytes` of content
 * (counted as it is unpacked, so a compression bomb stops early) or of entries. Names are normalised
 * (a leading `./` dropped, a folder's trailing `/`); global and pax headers are read by tar-stream.
 * Throws PackError with the reason; the entries are then checked by checkPackEntries.
 */
export async function readTarEntries(source: Readable, limits: PackLimits, gzip: boolean): Promise<PackEntry[]> {
  const entries: PackEntry[] = [];
  let bytes = 0;
  const unpack = extract();
  unpack.on("entry", (header: TarHeader, stream, next) => {
    const fail = (error: Error) => {
      stream.resume();
      next(error);
    };
    const name = header.name.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
    if (name === "" || name === ".") {
      stream.resume();
      stream.on("end", () => next());
      return;
    }
    if (entries.length >= limits.maxEntries) return fail(new PackError(`the archive holds more than ${limits.maxEntries} entries`));
    if (header.type === "directory") {
      entries.push({ path: name, kind: "dir" });
    } else if (header.type === "symlink") {
      entries.push({ path: name, kind: "link", target: header.linkname ?? "" });
    } else if (header.type === "link") {
      return fail(new PackError(`${name} is a hard link in the archive: a pack may not hold one`));
    } else if (header.type !== "file" && header.type !== "contiguous-file") {
      return fail(new PackError(`${name} is a ${header.type} in the archive: a pack may hold only files, folders and links`));
    }
    if (header.type !== "file" && header.type !== "contiguous-file") {
      stream.resume();
      stream.on("end", () => next());
      return;
    }
    const chunks: Buffer[] = [];
    const hash = createHash("sha256");
    stream.on("data", (data: unknown) => {
      const chunk = data as Buffer;
      bytes += chunk.length;
      if (bytes > limits.maxBytes) {
        stream.destroy(new PackTooLargeError(`the archive unpacks to more than ${limits.maxBytes} bytes (PACK_MAX_BYTES)`));
        return;
      }
      hash.update(chunk);
      chunks.push(chunk);
    });
    stream.on("error", (error) => next(error));
    stream.on("end", () => {
      entries.push({ path: name, kind: "file", executable: ((header.mode ?? 0) & 0o111) !== 0, sha256: hash.digest("hex"), bytes: Buffer.concat(chunks) });
      next();
    });
  });
  // Every byte of the tar stream counts, not only files' content: headers, padding, the data of entries
  // that are not files and zeros after the end would otherwise be unpacked for free (a gzip of 1 GiB of
  // zeros is 1 MiB). A tar adds at most 1 KiB per entry (a header block and padding) and its end blocks.
  const tarLimit = limits.maxBytes + (limits.maxEntries + 2) * 1024 + 1024 * 1024;
  let tarBytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      tarBytes += chunk.length;
      if (tarBytes > tarLimit) return done(new PackTooLargeError(`the archive unpacks to more than ${tarLimit} bytes (PACK_MAX_BYTES and the tar format's overhead)`));
      done(null, chunk);
    },
  });
  const steps: Array<NodeJS.ReadableStream | NodeJS.WritableStream> = [source];
  if (gzip) steps.push(createGunzip());
  steps.push(counted);
  try {
    await pipeline([...steps, unpack] as unknown as [Readable, Writable]);
  } catch (error) {
    if (error instanceof PackError) throw error;
    throw new PackError(`the archive cannot be read: ${(error as Error).message}`);
  }
  // Parent folders an archive left implicit.
  const listed = new Set(entries.map((entry) => entry.path));
  for (const entry of [...entries]) {
    const segments = entry.path.split("/");
    for (let depth = 1; depth < segments.length; depth++) {
      const folder = segments.slice(0, depth).join("/");
      if (!listed.has(folder)) {
        listed.add(folder);
        entries.push({ path: folder, kind: "dir" });
      }
    }
  }
  return entries;
}

/**
 * Re-roots entries at `prefix` (a folder of them): the entries below it, with the prefix taken off.
 * Pure.
 */
export function entriesBelow(entries: readonly PackEntry[], prefix: string): PackEntry[] {
  if (prefix === "") return [...entries];
  const start = `${prefix}/`;
  return entries.filter((entry) => entry.path.startsWith(start)).map((entry) => ({ ...entry, path: entry.path.slice(start.length) }));
}

/**
 * Writes checked pack entries into `folder`, which must not exist yet (created mode 0755): folders
 * first, then files (0644, or 0755 when executable) opened exclusively, then links, so no file is ever
 * written through a link. Throws PackError on a file system error.
 */
export async function writePackEntries(folder: string, entries: readonly PackEntry[]): Promise<void> {
  try {
    await fs.mkdir(folder, { mode: 0o755 });
    for (const entry of entries) if (entry.kind === "dir") await fs.mkdir(path.join(folder, entry.path), { recursive: true, mode: 0o755 });
    for (const entry of entries) {
      if (entry.kind !== "file") continue;
      await fs.mkdir(path.dirname(path.join(folder, entry.path)), { recursive: true, mode: 0o755 });
      await fs.writeFile(path.join(folder, entry.path), entry.bytes, { flag: "wx", mode: entry.executable ? 0o755 : 0o644 });
      // The mode asked for is masked by the umask; the executable bit is part of the digest.
      await fs.chmod(path.join(folder, entry.path), entry.executable ? 0o755 : 0o644);
    }
    for (const entry of entries) if (entry.kind === "link") await fs.symlink(entry.target, path.join(folder, entry.path));
  } catch (error) {
    throw new PackError(`the pack cannot be written to ${folder}: ${(error as Error).message}`);
  }
}
