import { hostname } from "node:os";
import { readProcStat } from "./proc-stat";
import { readBootId, type ProcessIdentity } from "./process-identity";
import { isGroupAlive, isOwnGroup, terminateGroup } from "./process-group";

/** What killOrphanGroup did with a recorded process group. */
export type OrphanGroupResult = "killed" | "gone" | "not_ours";

/**
 * Start-up recovery (DESIGN.md "Subprocess skills": a starting console marks `interrupted` the calls
 * whose owner's lease lapsed and kills their process group if it still exists).
 *
 * Takes the pgid and ProcessIdentity recorded when the call was spawned and the TERM→KILL grace in ms.
 * Returns "not_ours" (touching nothing) when the record is from another host or another boot, when the
 * group leader (pid == pgid) exists with a start time other than the recorded one (the id was reused),
 * when it is the console's own group or not a group id at all (an integer above 1), or when this user
 * may not signal the group; "gone" when no live member remains; otherwise terminates the group (TERM,
 * grace, KILL) and returns "killed". Never throws for bad records.
 */
export async function killOrphanGroup(pgid: number, recorded: ProcessIdentity, graceMs: number): Promise<OrphanGroupResult> {
  if (!Number.isInteger(pgid) || pgid <= 1) return "not_ours";
  if (recorded.host !== hostname() || recorded.bootId !== readBootId()) return "not_ours";
  if (isOwnGroup(pgid)) return "not_ours";
  if (!isGroupAlive(pgid)) return "gone";
  const leader = readProcStat(pgid);
  if (leader !== null && leader.startTime !== recorded.procStart) return "not_ours";
  const termination = await terminateGroup(pgid, graceMs);
  if (termination.denied) return "not_ours";
  return termination.signalled ? "killed" : "gone";
}
