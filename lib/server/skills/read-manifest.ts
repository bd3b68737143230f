import { createHash } from "node:crypto";
import fs, { constants as fsConstants } from "node:fs";
import { checkManifest, type ManifestCheck } from "@/lib/validation/manifest-schema";
import { isUnderRoot } from "./allowlist-roots";
import { describeFsError } from "./loader-log";
import type { SkillSource } from "./registered-skill";
import type { FoundManifest } from "./walk-manifests";
import { deepFreeze } from "./deep-freeze";

/** Largest `skill.json` read (1 MiB); a manifest is a few hundred bytes, anything bigger is a mistake. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Opens the manifest without following a final symlink and checks, on the opened file itself, that it
 * is a regular file under `root` no larger than MAX_MANIFEST_BYTES: the walk's view (or a realpath) may
 * be stale by the time of the read, since whoever can write in the root can swap `skill.json`, or a
 * folder above it, for a symlink in between. The opened file's real path comes from
 * /proc/self/fd/<fd> (where /proc is missing, the O_NOFOLLOW open is the only guard). Returns the
 * text or the reason it may not be read.
 */
function readOpenedManifest(file: string, root: string): { text: string; sha256: string } | { problem: string } {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in must not block the scan; O_NOFOLLOW: a symlink swapped in fails (ELOOP).
    fd = fs.openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return { problem: "became a symlink after the walk; not followed" };
    return { problem: `cannot read: ${describeFsError(error)}` };
  }
  try {
    let opened: string | null = null;
    try {
      opened = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      opened = null;
    }
    if (opened !== null && !isUnderRoot(root, opened)) return { problem: `manifest ${opened} escapes allowlist root ${root}` };
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { problem: "not a regular file" };
    if (stat.size > MAX_MANIFEST_BYTES) return { problem: `larger than ${MAX_MANIFEST_BYTES} bytes` };
    // Sized by the file (a 1 MiB buffer per manifest cost a scan of 10,000 skills ~10 GiB of zeroing),
    // grown up to the limit + 1 should the file grow while it is read.
    let buffer = Buffer.allocUnsafe(Math.min(stat.size, MAX_MANIFEST_BYTES) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (buffer.length > MAX_MANIFEST_BYTES) break;
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, MAX_MANIFEST_BYTES + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const wanted = buffer.length - length;
      const bytesRead = fs.readSync(fd, buffer, length, wanted, length);
      length += bytesRead;
      // A regular file's read returns less than asked only at its end: no second read to learn it.
      if (bytesRead < wanted) break;
    }
    if (length > MAX_MANIFEST_BYTES) return { problem: `larger than ${MAX_MANIFEST_BYTES} bytes` };
    const bytes = buffer.subarray(0, length);
    return { text: bytes.toString("utf8"), sha256: createHash("sha256").update(bytes).digest("hex") };
  } catch (error) {
    return { problem: `cannot read: ${describeFsError(error)}` };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads, parses and checks one `skill.json` found under `root` (a realpath'd allow-list root). A
 * manifest that is a symlink must resolve inside the root (deny when in doubt), and its target is then
 * read; either way the file actually opened (O_NOFOLLOW, checked through its descriptor) must lie
 * under the root and be a regular file no larger than MAX_MANIFEST_BYTES (so a FIFO named skill.json
 * can never block start-up, and a symlink swapped in after the walk is never followed out of the root
 * and quoted in a parse error). A UTF-8 byte-order mark is tolerated; the JSON must parse and pass
 * checkManifest. Never throws. Returns checkManifest's result, or `{ ok: false, message, name: null }`
 * where message is the JSON.parse message or the file problem — the `<message>` of the seed's
 * `skill loader: parse <path>: <message>` line. Synchronous file-system calls (the loader yields
 * between manifests: work-slices.ts).
 */
export async function readManifest(found: FoundManifest, root: string): Promise<ReadManifest> {
  const fail = (message: string): ReadManifest => ({ ok: false, message, name: null });
  if (found.kind === "other") return fail("not a regular file");
  let file = found.path;
  if (found.kind === "symlink") {
    try {
      file = fs.realpathSync.native(found.path);
    } catch (error) {
      return fail(`cannot read: ${describeFsError(error)}`);
    }
    if (!isUnderRoot(root, file)) return fail(`manifest ${file} escapes allowlist root ${root}`);
  }
  const read = readOpenedManifest(file, root);
  if ("problem" in read) return fail(read.problem);
  const checked = checkedManifest(read.text, read.sha256);
  return checked.ok ? { ...checked, source: { file, sha256: read.sha256 } } : checked;
}

/** Most manifest checks kept by content (checkedManifest): a fleet of 50,000 skills rescanned reuses all. */
export const CHECKED_MANIFESTS_MAX = 50_000;

/** checkManifest results by the SHA-256 of the bytes checked, least recently used first. */
const checkedBySha = new Map<string, ManifestCheck>();

/**
 * Parses and checks a manifest's text (BOM tolerated), or returns the result of checking the very same
 * bytes before (by their SHA-256): a Rescan reads every file again, but parses and validates only
 * bytes it has not seen — the result of checkManifest is a pure function of them. The manifest
 * objects kept are shared by the scans that reuse them and never changed (the registry freezes what it
 * serves). Keeps at most CHECKED_MANIFESTS_MAX. Never throws.
 */
function checkedManifest(text: string, sha256: string): ManifestCheck {
  const seen = checkedBySha.get(sha256);
  if (seen) {
    checkedBySha.delete(sha256);
    checkedBySha.set(sha256, seen);
    return seen;
  }
  let value: unknown;
  let checked: ManifestCheck;
  try {
    value = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
    checked = checkManifest(value);
  } catch (error) {
    checked = { ok: false, message: error instanceof Error ? error.message : String(error), name: null };
  }
  // Shared by every scan that reuses it: frozen, so no one can change what the next scan is given.
  checkedBySha.set(sha256, deepFreeze(checked));
  if (checkedBySha.size > CHECKED_MANIFESTS_MAX) checkedBySha.delete(checkedBySha.keys().next().value!);
  return checked;
}

/**
 * readManifest's result: checkManifest's, and for a manifest that checks out, the file read (its real
 * path) and the SHA-256 of its bytes, which a call's plan compares with the file as it reads the skill
 * again (call-plan.ts: the policy never judges a call by a manifest other than the one it binds).
 */
export type ReadManifest = (Extract<ManifestCheck, { ok: true }> & { source: SkillSource }) | Extract<ManifestCheck, { ok: false }>;
