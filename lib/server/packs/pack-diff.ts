import { createTwoFilesPatch } from "diff";
import type { PackFileDiff } from "@/lib/types/pack";
import { readFolderEntries, type PackEntry, type PackLimits } from "./pack-tree";

/** Largest file whose text diff is shown, in bytes; a bigger one is described. */
export const DIFF_FILE_MAX_BYTES = 256 * 1024;
/** Most diff text one review carries, in characters; past it diffs are described, not shown. */
export const DIFF_TOTAL_MAX_CHARS = 4 * 1024 * 1024;

function isText(bytes: Buffer): boolean {
  return !bytes.subarray(0, 8192).includes(0);
}

function describe(entry: PackEntry | undefined): string {
  if (!entry) return "nothing";
  if (entry.kind === "dir") return "a folder";
  if (entry.kind === "link") return `a link to ${JSON.stringify(entry.target)}`;
  return `${entry.executable ? "an executable " : "a "}${isText(entry.bytes) ? "text" : "binary"} file of ${entry.bytes.length} bytes (sha256 ${entry.sha256.slice(0, 12)}…)`;
}

function same(a: PackEntry, b: PackEntry): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.sha256 === b.sha256 && a.executable === b.executable;
  if (a.kind === "link" && b.kind === "link") return a.target === b.target;
  return true;
}

/**
 * The review's per-file diffs (DESIGN.md "Skill packs": the diff of every file against the installed
 * version): every file and link of the staged folder and of `enabledFolder` (null: nothing installed,
 * every file `added`), by path. A text file's diff is unified (`createTwoFilesPatch`, 3 lines of
 * context); a binary file, a link, a change of kind or of the executable bit, a file over
 * DIFF_FILE_MAX_BYTES, and everything past DIFF_TOTAL_MAX_CHARS are described in a sentence.
 * Folders are left out. Throws PackError when a folder cannot be read.
 */
export async function packFileDiffs(stagedFolder: string, enabledFolder: string | null, limits: PackLimits): Promise<PackFileDiff[]> {
  const after = new Map((await readFolderEntries(stagedFolder, limits)).filter((entry) => entry.kind !== "dir").map((entry) => [entry.path, entry]));
  const before = new Map(enabledFolder ? (await readFolderEntries(enabledFolder, limits)).filter((entry) => entry.kind !== "dir").map((entry) => [entry.path, entry]) : []);
  const paths = [...new Set([...after.keys(), ...before.keys()])].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  let budget = DIFF_TOTAL_MAX_CHARS;
  return paths.map((relative): PackFileDiff => {
    const old = before.get(relative);
    const now = after.get(relative);
    const change: PackFileDiff["change"] = !old ? "added" : !now ? "removed" : same(old, now) ? "same" : "changed";
    if (change === "same") return { path: relative, change, diff: null };
    const textual = (entry: PackEntry | undefined) => !entry || (entry.kind === "file" && isText(entry.bytes) && entry.bytes.length <= DIFF_FILE_MAX_BYTES);
    let diff: string;
    if (textual(old) && textual(now) && (old?.kind ?? "file") === "file" && (now?.kind ?? "file") === "file") {
      const text = (entry: PackEntry | undefined) => (entry && entry.kind === "file" ? entry.bytes.toString("utf8") : "");
      // jsdiff opens with a line of `=`; a unified diff starts at its `---` line.
      diff = createTwoFilesPatch(old ? `a/${relative}` : "/dev/null", now ? `b/${relative}` : "/dev/null", text(old), text(now), undefined, undefined, { context: 3 }).replace(/^=+\n/, "");
      const modeNote = old && now && old.kind === "file" && now.kind === "file" && old.executable !== now.executable ? `executable: ${old.executable} → ${now.executable}\n` : "";
      diff = modeNote + diff;
    } else {
      diff = `was ${describe(old)}, now ${describe(now)}`;
    }
    if (diff.length > budget) diff = `diff not shown: the review's diffs reached ${DIFF_TOTAL_MAX_CHARS} characters (now ${describe(now)})`;
    budget -= diff.length;
    return { path: relative, change, diff };
  });
}
