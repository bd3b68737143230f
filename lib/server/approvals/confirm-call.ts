import { payloadText } from "../calls/call-payloads";
import type { Call } from "@/lib/types/call";
import type { Identity } from "@/lib/types/identity";
import { announceQueued, releaseQueueRoom, reserveQueueRoom } from "../calls/call-queue";
import { toCall } from "../calls/call-record";
import { transitionCall } from "../calls/call-transitions";
import { waitForCallEnd } from "../calls/wait-for-call";
import { holdsRoleNow } from "../auth/users";
import { db } from "../db";
import { modelTransaction } from "../db-transactions";
import { config } from "../env";
import { AppError } from "../errors";
import { refuseUnknownFields } from "../http/known-fields";
import { digestMismatch } from "../skills/plan-on-console";
import { getRegistry } from "../skills/registry";
import { requirePerson } from "./audit-actor";
import { approvalsChanged } from "./approval-feed";
import { expireConfirmation } from "./expire-approvals";
import { currentPolicyRefusal, denyByCurrentPolicy } from "./policy-refusal";
import { markAboutExisting } from "../audit/refused-attempts";

/**
 * Checks the optional body of `POST /api/v1/calls/{id}/confirm`: empty, or `{"wait": false}` to answer
 * at once. Returns whether to wait for the end state (default true); throws AppError `bad_request`.
 */
export function parseConfirmRequest(body: unknown): boolean {
  if (body === undefined) return true;
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AppError("bad_request", 'the body must be empty or {"wait": false}');
  refuseUnknownFields(body, ["wait"], "a confirmation");
  const { wait } = body as { wait?: unknown };
  if (wait !== undefined && typeof wait !== "boolean") throw new AppError("bad_request", "wait must be a boolean");
  return wait ?? true;
}

/**
 * Confirms a mutating call (`POST /api/v1/calls/{id}/confirm`, operator and above, a person — the
 * requester themself included; DESIGN.md policy table "run after one person confirms"). A call left
 * awaiting past APPROVAL_TTL_SECONDS is expired here; the call's digest is recomputed from the
 * console's copy and a mismatch ends it `expired` with the reason. Then one compare-and-set
 * `awaiting_confirmation` → `queued` (`confirmedBy` set) with a `call.confirmed` audit entry; only the
 * winner queues it for a worker. With `wait`, resolves once a worker ended it (or `signal` aborts).
 * Returns `{call, finished}` like requestCall. Throws `not_found`, `forbidden` (a token, a demoted confirmer), `conflict`
 * (409: not awaiting confirmation, expired, changed), `unavailable` (queue full).
 */
export async function confirmCall(callId: string, identity: Identity, wait: boolean, signal?: AbortSignal): Promise<{ call: Call; finished: boolean }> {
  requirePerson(identity, "confirm calls");
  let row = await db().call.findUnique({ where: { id: callId } });
  if (!row) throw new AppError("not_found", `no call with id ${JSON.stringify(callId)}`);
  if (row.status === "awaiting_confirmation" && (await expireConfirmation(callId))) {
    row = await db().call.findUniqueOrThrow({ where: { id: callId } });
  }
  if (row.status !== "awaiting_confirmation") {
    throw new AppError("conflict", `call ${callId} is ${row.status}, not awaiting confirmation${row.error ? ` (${row.error})` : ""}`);
  }
  const skill = (await getRegistry()).get(row.skill);
  const mismatch = await digestMismatch(skill, row);
  if (mismatch || !skill) {
    const reason = mismatch ?? "the skill is no longer registered";
    await transitionCall({ callId, from: "awaiting_confirmation", to: "expired", changes: { error: reason, endedAt: new Date() }, audit: { action: "call.expired", actor: "system", details: { reason, noticedBy: identity.email } } });
    throw new AppError("conflict", `call ${callId} can no longer be confirmed: ${reason}`);
  }
  const policyRefusal = await currentPolicyRefusal(row, skill);
  if (policyRefusal) {
    await denyByCurrentPolicy(callId, policyRefusal, identity.email);
    throw markAboutExisting(new AppError("forbidden", `call ${callId} cannot be confirmed: the current policy refuses it (${policyRefusal})`));
  }

  await reserveQueueRoom(callId, await payloadText(callId, "args", row.args), 8 * config().argsLimitBytes);
  const confirmer = identity.userId!;
  const confirmed = await modelTransaction(async (tx) => {
      const queued = await transitionCall(
        { callId, from: "awaiting_confirmation", to: "queued", changes: { confirmedBy: identity.email }, audit: { action: "call.confirmed", actor: identity.email, actorId: confirmer } },
        tx,
      );
      // The role is read again under the write lock the transition took (as a signature's is): a
      // demotion that landed after this request was identified must not let it confirm.
      if (queued && !(await holdsRoleNow(tx, confirmer, "operator"))) throw markAboutExisting(new AppError("forbidden", `${identity.email} is no longer an operator; the call was not confirmed`));
      return queued;
    })
    .catch((error: unknown) => {
      releaseQueueRoom(callId);
      throw error;
    });
  if (!confirmed) {
    releaseQueueRoom(callId);
    const current = await db().call.findUniqueOrThrow({ where: { id: callId }, select: { status: true } });
    throw new AppError("conflict", `call ${callId} is ${current.status}, not awaiting confirmation`);
  }
  announceQueued();
  approvalsChanged();
  if (!wait) return { call: toCall(confirmed), finished: false };
  const ended = await waitForCallEnd(callId, signal);
  return ended ? { call: ended, finished: true } : { call: toCall(confirmed), finished: false };
}
