import { isRole, roleAtLeast } from "@/lib/types/identity";
import { DEFAULT_PERSONA_NAME } from "@/lib/types/persona";
import { transitionCall } from "../calls/call-transitions";
import { db } from "../db";
import { decideCall } from "../policy/decide";
import { findPersona } from "../personas/persona-store";
import type { RegisteredSkill } from "../skills/registered-skill";
import { modelTransaction } from "../db-transactions";
import { approvalsChanged } from "./approval-feed";

/**
 * Why the policy in force now denies a waiting call (DESIGN.md "Policy"): the call was allowed by its
 * persona as it was at request time, made by someone allowed to request it; since then an admin may
 * have denied the skill, made the persona read-only or deleted it, revoked the agent's token, or
 * demoted the requester below operator. A confirmation or signature applies the stricter of the two
 * states, so it must not run what would now be refused. Returns the reason, or null when the call may
 * still go on (a call stored without a persona ran under `default`; a persona made more permissive
 * changes nothing: the call still waits for what it waited for).
 */
export async function currentPolicyRefusal(
  call: { persona: string | null; requesterId: string | null; tokenId: string | null },
  skill: Pick<RegisteredSkill, "name" | "category" | "class" | "kind">,
): Promise<string | null> {
  if (call.tokenId !== null) {
    const token = await db().apiToken.findUnique({ where: { id: call.tokenId }, select: { name: true, revokedAt: true } });
    if (!token || token.revokedAt) return `the API token ${token ? JSON.stringify(token.name) + " " : ""}that requested it has been revoked`;
  }
  if (call.requesterId !== null) {
    const requester = await db().user.findUnique({ where: { id: call.requesterId }, select: { email: true, role: true } });
    if (!requester || !isRole(requester.role) || !roleAtLeast(requester.role, "operator")) {
      return `its requester ${requester?.email ?? "(removed)"} may no longer request calls (${requester?.role ?? "no account"})`;
    }
  }
  const personaName = call.persona ?? DEFAULT_PERSONA_NAME;
  const persona = await findPersona(personaName);
  if (!persona) return `persona ${personaName} no longer exists`;
  const decision = decideCall(persona, skill);
  return decision.outcome === "deny" ? `${skill.name}: ${decision.reason}` : null;
}

/**
 * Ends a waiting call the current policy denies (see currentPolicyRefusal), in one transaction:
 * compare-and-set the call `awaiting_confirmation`/`awaiting_approval` → `denied` with the reason, its
 * pending approval, if any, → `denied` (decided by `system`), and an audit entry (`call.denied` or
 * `approval.denied`, actor `system`, with who noticed). Returns true when this request ended it.
 */
export async function denyByCurrentPolicy(callId: string, reason: string, noticedBy: string): Promise<boolean> {
  const denied = await modelTransaction(async (tx) => {
    const now = new Date();
    const approval = await tx.approval.findUnique({ where: { callId }, select: { id: true } });
    const ended = await transitionCall(
      {
        callId,
        from: ["awaiting_confirmation", "awaiting_approval"],
        to: "denied",
        changes: { error: `refused by the current policy: ${reason}`, endedAt: now },
        audit: { action: approval ? "approval.denied" : "call.denied", actor: "system", callId, approvalId: approval?.id ?? null, details: { reason, noticedBy } },
      },
      tx,
    );
    if (!ended) return false;
    if (approval) {
      await tx.approval.updateMany({ where: { id: approval.id, status: "pending" }, data: { status: "denied", reason: `refused by the current policy: ${reason}`, decidedBy: "system", decidedAt: now } });
    }
    return true;
  });
  if (denied) approvalsChanged();
  return denied;
}
