import { mkdirSync, writeFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { killOrphanGroup, type ProcessIdentity } from "@/lib/server/executor";

/** What the worker writes down about a call's process while it runs, for the next start to kill what it left. */
interface RunningRecord {
  pgid: number;
  identity: ProcessIdentity;
}

function folderOf(stateDir: string): string {
  return path.join(stateDir, "running");
}

/**
 * Records a just-spawned call's process group in `<stateDir>/running/<callId>.json` (mode 0600),
 * synchronously inside the spawn hook, so a worker killed with -9 leaves its successor what to kill
 * (DESIGN.md: a worker that vanishes leaves no process behind). Only for a call without a cgroup that
 * kills all of it (CallCgroup.killsEverything): that cgroup is the record sweepStaleCgroups finds.
 * Failures are logged, never thrown.
 */
export function writeRunningRecord(stateDir: string, callId: string, record: RunningRecord): void {
  try {
    mkdirSync(folderOf(stateDir), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(folderOf(stateDir), `${path.basename(callId)}.json`), JSON.stringify(record), { mode: 0o600 });
  } catch (error) {
    console.error(`worker: could not record the process group of call ${callId}:`, error);
  }
}

/** Removes a call's record once its process group is gone. Never throws. */
export async function forgetRunningRecord(stateDir: string, callId: string): Promise<void> {
  // unlink, not rm: rm's recursive machinery costs an lstat and more per call for one plain file.
  await fs.unlink(path.join(folderOf(stateDir), `${path.basename(callId)}.json`)).catch(() => undefined);
}

/**
 * At worker start: kills what a previous worker process left running (each recorded group, if it is
 * still the same one: killOrphanGroup checks host, boot and start time), then removes the records.
 * Returns how many groups were killed. Never throws.
 */
export async function killLeftoverGroups(stateDir: string, graceMs: number): Promise<number> {
  let killed = 0;
  const names = await fs.readdir(folderOf(stateDir)).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(folderOf(stateDir), name);
    try {
      const record = JSON.parse(await fs.readFile(file, "utf8")) as RunningRecord;
      if ((await killOrphanGroup(record.pgid, record.identity, graceMs)) === "killed") killed++;
    } catch {
      // An unreadable record names nothing we could safely kill.
    }
    await fs.rm(file, { force: true }).catch(() => undefined);
  }
  return killed;
}
