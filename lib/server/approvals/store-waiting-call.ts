import { randomUUID } from "node:crypto";
import type { Call as CallRow } from "@prisma/client";
import canonicalize from "canonicalize";
import { type AuditInput } from "../audit/audit-trail";
import { storePayload } from "../calls/call-payloads";
import { insertCall, type NewCallRow } from "../calls/call-transitions";
import { config } from "../env";
import { secretFingerprintsOf } from "../secrets/secret-store";
import type { CallPlan } from "../skills/call-plan";
import { approvalsChanged } from "./approval-feed";

/**
 * Stores a dangerous call that waits for two approvers (DESIGN.md "Dual-sign rules"): the call
 * `awaiting_approval` and its Approval `pending` — bound to the plan's call digest (its canonical input
 * kept for approvers to read, with the skill digest's input: files, sandbox declaration, env_allow,
 * timeout) and to the fingerprints of the secrets given to its skill (approval-secrets.ts), 2 signatures required, expiring after APPROVAL_TTL_SECONDS — with the `call.requested`
 * and `approval.requested` audit entries, in one transaction (a long digest input in CallPayload
 * parts, written first). Returns the call row.
 */
export async function requestApproval(call: NewCallRow & { id: string; requestedBy: string; requesterId: string }, plan: CallPlan, requested: AuditInput): Promise<CallRow> {
  const approvalId = randomUUID();
  const expiresAt = new Date(Date.now() + config().approvalTtlSeconds * 1000);
  // A long digest input (it holds the args) is stored in parts, not in the row each signature updates.
  const digestInput = await storePayload(call.id, "digestInput", plan.call.text);
  const row = await insertCall(
    call,
    "awaiting_approval",
    [
      { ...requested, approvalId },
      { ...requested, approvalId, action: "approval.requested", details: { required: 2, expiresAt: expiresAt.toISOString(), sandbox: plan.skill.input.sandbox } },
    ],
    async (tx) => {
      await tx.approval.create({
        data: {
          id: approvalId,
          callId: call.id,
          status: "pending",
          digest: plan.call.digest,
          digestInput,
          skillInput: canonicalize(plan.skill.input) ?? null,
          secrets: JSON.stringify(await secretFingerprintsOf(call.skill, plan.folder, tx)),
          requestedBy: call.requestedBy,
          requesterId: call.requesterId,
          required: 2,
          expiresAt,
        },
      });
    },
  );
  approvalsChanged();
  return row;
}
