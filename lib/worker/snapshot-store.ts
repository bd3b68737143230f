import fs from "node:fs/promises";
import path from "node:path";

/**
 * Prepares the folder the worker's snapshots live in (`<WORKER_STATE_DIR>/snapshots`) and says whether
 * the sandbox's uid can reach it (DESIGN.md "Workers and the sandbox": the snapshot is bound into the
 * sandbox as the skill's folder; bwrap, running as that uid, resolves the bind's source path, so every
 * folder above the snapshots must be passable by it — mode o+x — though none need be listable).
 * Creates the state folder and the store with mode 0711. Returns the store's path and null, or the
 * reason sandboxed calls cannot use it (e.g. `/srv/console/data is mode 0700: uid 65534 cannot pass
 * through it to the snapshots; make it 0711 or set WORKER_STATE_DIR`).
 */
export async function prepareSnapshotStore(stateDir: string, sandboxUid: number | null): Promise<{ store: string; problem: string | null }> {
  const store = path.join(stateDir, "snapshots");
  await fs.mkdir(stateDir, { recursive: true, mode: 0o711 });
  await fs.chmod(stateDir, 0o711);
  await fs.mkdir(store, { recursive: true, mode: 0o711 });
  await fs.chmod(store, 0o711);
  if (sandboxUid === null) return { store, problem: null };
  for (let dir = store; ; dir = path.dirname(dir)) {
    const stats = await fs.stat(dir);
    const passable = (stats.mode & 0o001) !== 0 || (stats.uid === sandboxUid && (stats.mode & 0o100) !== 0);
    if (!passable) {
      return { store, problem: `${dir} is mode ${(stats.mode & 0o777).toString(8).padStart(4, "0")}: uid ${sandboxUid} cannot pass through it to the worker's snapshots; make it 0711 or set WORKER_STATE_DIR to a folder it can reach` };
    }
    if (dir === path.dirname(dir)) return { store, problem: null };
  }
}
