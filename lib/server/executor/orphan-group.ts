import { hostname } from "node:os";
import { listLiveGroupMemberStats, readProcStat } from "./proc-stat";
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
 * when the leader is gone and the remaining members cannot all be leftovers of the executor's group
 * (membersCouldBeOurs), when it is the console's own group or not a group id at all (an integer above
 * 1), or when this user may not signal the group; "gone" when no live member remains; otherwise
 * terminates the group (TERM, grace, KILL) and returns "killed". Never throws for bad records.
 */
export async function killOrphanGroup(pgid: number, recorded: ProcessIdentity, graceMs: number): Promise<OrphanGroupResult> {
  if (!Number.isInteger(pgid) || pgid <= 1) return "not_ours";
  if (recorded.host !== hostname() || recorded.bootId !== readBootId()) return "not_ours";
  if (isOwnGroup(pgid)) return "not_ours";
  if (!isGroupAlive(pgid)) return "gone";
  const leader = readProcStat(pgid);
  if (leader !== null && leader.startTime !== recorded.procStart) return "not_ours";
  if (leader === null && !membersCouldBeOurs(pgid, recorded.procStart)) return "not_ours";
  const termination = await terminateGroup(pgid, graceMs);
  if (termination.denied) return "not_ours";
  return termination.signalled ? "killed" : "gone";
}

/**
 * With the leader gone its start time proves nothing, so the members must: the executor starts every
 * child with setsid (detached), so every process of a group it started lives in the session whose id
 * is the pgid, and none can have started before the recorded leader. A group with the same id in
 * another session (a shell job, a daemon's worker group) was made by someone else after the id was
 * recycled. Deny when in doubt: false when /proc cannot be listed.
 */
function membersCouldBeOurs(pgid: number, leaderStart: string | null): boolean {
  const members = listLiveGroupMemberStats(pgid);
  if (members === null) return false;
  return members.every((member) => member.session === pgid && (leaderStart === null || Number(member.startTime) >= Number(leaderStart)));
}
