import fs from "node:fs";
import path from "node:path";

/**
 * Where packs live under PACKS_PATH (DESIGN.md "Skill packs"): `installed/<name>/` holds each enabled
 * pack and is the root both loaders walk; `versions/<id>/<name>/` holds every staged version's files,
 * never changed after staging (review, diffs, rollback); `work/` holds what is being written, renamed
 * into place when complete. All three lie on one file system, so those renames are atomic.
 */
export interface PackLayout {
  installed: string;
  versions: string;
  work: string;
}

/** The layout of a PACKS_PATH (absolute). Pure. */
export function packLayout(packsPath: string): PackLayout {
  return { installed: path.join(packsPath, "installed"), versions: path.join(packsPath, "versions"), work: path.join(packsPath, "work") };
}

/** The root both loaders walk for installed packs: `<PACKS_PATH>/installed`. Pure. */
export function installedPacksRoot(packsPath: string): string {
  return packLayout(packsPath).installed;
}

/**
 * The layout of a PACKS_PATH by its real path, the folder made first when missing: every folder a pack
 * operation reads or writes is named by its real path, as the loaders and the bounded folder reader
 * (which refuses a folder that is not its own real path) name them, whatever link PACKS_PATH goes
 * through. Throws the file system's error when it cannot be made.
 */
export function realPackLayout(packsPath: string): PackLayout {
  fs.mkdirSync(packsPath, { recursive: true, mode: 0o755 });
  return packLayout(fs.realpathSync(packsPath));
}
