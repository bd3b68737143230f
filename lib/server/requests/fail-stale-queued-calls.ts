import { releaseQueueRoom } from "../calls/call-queue";
import { publishEnd } from "../calls/call-bus";
import { toCall } from "../calls/call-record";
import { transitionCall } from "../calls/call-transitions";
import { db } from "../db";
import { consoleDigest } from "../skills/console-digests";
import { getRegistry } from "../skills/registry";

/**
 * After a loader scan (start-up, `POST /api/v1/loader/reload`): ends `failed` every queued call whose
 * skill is gone or whose console copy no longer has the digest the call is bound to (DESIGN.md
 * "Policy": a call runs only what was authorised — the args were validated and the policy applied to
 * the skill as it was). Each is a compare-and-set from `queued` with a `call.failed` audit entry, so a
 * call a worker claimed meanwhile is left to it. Returns how many were ended.
 */
export async function failStaleQueuedCalls(): Promise<number> {
  const registry = await getRegistry();
  const queued = await db().call.findMany({ where: { status: "queued" }, select: { id: true, skill: true, skillDigest: true }, take: 10_000 });
  let ended = 0;
  for (const call of queued) {
    const skill = registry.get(call.skill);
    const current = skill ? await consoleDigest(registry, skill) : null;
    if (skill && call.skillDigest !== null && current?.digest === call.skillDigest) continue;
    const reason = skill
      ? `skill ${call.skill} changed (loader reload) while the call was queued; it was not started, start it again`
      : `skill ${call.skill} was removed by a loader reload while the call was queued; it was not started`;
    const row = await transitionCall({
      callId: call.id,
      from: "queued",
      to: "failed",
      changes: { error: reason, endedAt: new Date() },
      audit: { action: "call.failed", actor: "system", details: { reason } },
    });
    if (!row) continue;
    releaseQueueRoom(call.id);
    publishEnd(call.id, toCall(row));
    ended++;
  }
  return ended;
}
