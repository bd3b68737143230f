import { randomBytes } from "node:crypto";
import { accessSync, utimesSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { CallPlan } from "./call-plan";

/**
 * A call's private read-only copy of its skill (DESIGN.md "Workers and the sandbox": the worker runs a
 * call from a snapshot of exactly the hashed bytes, content-addressed by digest, never from the live
 * folder). `folder` holds the skill folder's files; `entry`, when the subprocess entry lies outside the
 * folder, the copy of that one file.
 */
export interface SkillSnapshot {
  digest: string;
  folder: string;
  entry: string | null;
}

/** Mode of the snapshot store's folders: the sandbox's uid may pass through them, never list or change them. */
const STORE_MODE = 0o711;

/**
 * Makes (or reuses) the snapshot of a plan made with `keepBytes` under `store`, at
 * `<store>/<skill digest>`. The snapshot is written from the bytes the plan hashed — never read again
 * from the live folder — into a private temporary folder, made read-only (files 0444, executables
 * 0555, folders 0555; readable by the sandbox's uid, writable by nobody) and renamed into place, so a
 * half-written snapshot is never used; a snapshot that already exists under that digest is reused
 * (its name is the digest of its bytes, and only the worker's user can write the store). Creates the
 * store with mode 0711. Throws Error when the plan lacks bytes, or the file system's error.
 */
export async function materializeSnapshot(store: string, plan: CallPlan): Promise<SkillSnapshot> {
  const digest = plan.skill.digest;
  const final = path.join(store, digest);
  const snapshot = (root: string): SkillSnapshot => ({ digest, folder: path.join(root, "folder"), entry: plan.outsideEntry ? path.join(root, "entry") : null });
  // Two quick system calls on every call's path, made synchronously (no thread-pool round trips).
  if (isComplete(final)) {
    // The last use, for pruneSnapshots.
    const now = new Date();
    try {
      utimesSync(final, now, now);
    } catch {
      // Pruning may see it as older: it is rewritten if it is ever removed.
    }
    return snapshot(final);
  }
  await fs.mkdir(store, { recursive: true, mode: STORE_MODE });
  await fs.chmod(store, STORE_MODE);
  const temporary = path.join(store, `.tmp-${randomBytes(8).toString("hex")}`);
  try {
    await writeSnapshot(temporary, plan);
    try {
      await fs.rename(temporary, final);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another call of the same skill made it first: same digest, same bytes.
      if (code !== "EEXIST" && code !== "ENOTEMPTY") throw error;
      await removeSnapshotFolder(temporary);
    }
  } catch (error) {
    await removeSnapshotFolder(temporary).catch(() => undefined);
    throw error;
  }
  return snapshot(final);
}

function isComplete(folder: string): boolean {
  try {
    accessSync(path.join(folder, ".complete"));
    return true;
  } catch {
    return false;
  }
}

async function writeSnapshot(root: string, plan: CallPlan): Promise<void> {
  const folder = path.join(root, "folder");
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  const dirs = [folder];
  for (const entry of plan.content.entries) {
    const target = path.join(folder, ...entry.path.split("/"));
    if (entry.kind === "dir") {
      await fs.mkdir(target, { mode: 0o700 });
      dirs.push(target);
    } else if (entry.kind === "link") {
      await fs.symlink(entry.target, target);
    } else {
      if (!entry.bytes) throw new Error(`the plan of ${plan.skill.input.name} holds no bytes for ${entry.path}: plan it with keepBytes`);
      await fs.writeFile(target, entry.bytes, { flag: "wx", mode: 0o600 });
      await fs.chmod(target, entry.executable ? 0o555 : 0o444);
    }
  }
  if (plan.outsideEntry) {
    if (!plan.outsideEntry.bytes) throw new Error(`the plan of ${plan.skill.input.name} holds no bytes for its entry: plan it with keepBytes`);
    const entryFile = path.join(root, "entry");
    await fs.writeFile(entryFile, plan.outsideEntry.bytes, { flag: "wx", mode: 0o600 });
    await fs.chmod(entryFile, 0o555);
  }
  await fs.writeFile(path.join(root, ".complete"), `${plan.skill.digest}\n`, { flag: "wx", mode: 0o444 });
  // Deepest first, so a folder is made read-only only after everything inside it is written.
  for (const dir of dirs.reverse()) await fs.chmod(dir, 0o555);
  await fs.chmod(root, 0o555);
}

/** Removes a snapshot folder made read-only (its folders are made writable again first). */
export async function removeSnapshotFolder(folder: string): Promise<void> {
  const unlock = async (dir: string): Promise<void> => {
    await fs.chmod(dir, 0o700).catch(() => undefined);
    for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory()) await unlock(path.join(dir, entry.name));
    }
  };
  await unlock(folder);
  await fs.rm(folder, { recursive: true, force: true });
}

/**
 * Removes the snapshots in `store` that no call has used for `maxAgeMs` (by the folder's modification
 * time, which materializeSnapshot sets on each use), and temporary folders as old, keeping `keep`
 * (digests of running calls). Returns how many were removed; never throws.
 */
export async function pruneSnapshots(store: string, keep: ReadonlySet<string>, maxAgeMs: number, now = Date.now()): Promise<number> {
  let removed = 0;
  const names = await fs.readdir(store).catch(() => [] as string[]);
  for (const name of names) {
    if (keep.has(name)) continue;
    const folder = path.join(store, name);
    try {
      const stats = await fs.stat(folder);
      if (now - stats.mtimeMs < maxAgeMs) continue;
      await removeSnapshotFolder(folder);
      removed++;
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}
