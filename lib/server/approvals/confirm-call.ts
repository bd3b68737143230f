import type { Call } from "@/lib/types/call";
import type { Identity } from "@/lib/types/identity";
import { recordAudit } from "../audit/audit-trail";
import { toCall } from "../calls/call-record";
import { nextLeaseUntil } from "../calls/call-lease";
import { reserveQueueRoom, runCall, waitForCall } from "../calls/call-runner";
import { consoleInstanceId } from "../calls/console-instance";
import { db } from "../db";
import { AppError } from "../errors";
import { refuseUnknownFields } from "../http/known-fields";
import { getRegistry } from "../skills/registry";
import { requirePerson } from "./audit-actor";
import { digestMismatch } from "./call-digest";
import { expireConfirmation } from "./expire-approvals";
import { currentPolicyRefusal, denyByCurrentPolicy } from "./policy-refusal";
import { TRANSACTION_OPTIONS } from "./transaction-options";

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
 * awaiting past APPROVAL_TTL_SECONDS is expired here; the call's digest is recomputed and a mismatch
 * ends it `expired` with the reason. Then one transaction compare-and-sets `awaiting_confirmation` →
 * `queued` (owned by this console, `confirmedBy` set) with a `call.confirmed` audit entry, and only the
 * winner runs it. Returns `{call, finished}` like createCall. Throws `not_found`, `forbidden` (a token),
 * `conflict` (409: not awaiting confirmation, expired, changed), `unavailable` (queue full).
 */
export async function confirmCall(callId: string, identity: Identity, wait: boolean): Promise<{ call: Call; finished: boolean }> {
  requirePerson(identity, "confirm calls");
  let row = await db().call.findUnique({ where: { id: callId } });
  if (!row) throw new AppError("not_found", `no call with id ${JSON.stringify(callId)}`);
  if (row.status === "awaiting_confirmation" && (await expireConfirmation(callId))) {
    row = await db().call.findUniqueOrThrow({ where: { id: callId } });
  }
  if (row.status !== "awaiting_confirmation") {
    throw new AppError("conflict", `call ${callId} is ${row.status}, not awaiting confirmation${row.error ? ` (${row.error})` : ""}`);
  }
  const skill = (await getRegistry()).get(row.skill) ?? null;
  const mismatch = row.digest === null ? null : digestMismatch(skill, row.args, { digest: row.digest });
  if (mismatch || !skill) {
    const reason = mismatch ?? "the skill is no longer registered";
    await expireChangedCall(callId, identity.email, reason);
    throw new AppError("conflict", `call ${callId} can no longer be confirmed: ${reason}`);
  }
  const policyRefusal = await currentPolicyRefusal(row, skill);
  if (policyRefusal) {
    await denyByCurrentPolicy(callId, policyRefusal, identity.email);
    throw new AppError("forbidden", `call ${callId} cannot be confirmed: the current policy refuses it (${policyRefusal})`);
  }

  const releaseQueueRoom = reserveQueueRoom(row.args);
  const confirmed = await db()
    .$transaction(async (tx) => {
      const changed = await tx.call.updateMany({
        where: { id: callId, status: "awaiting_confirmation" },
        data: { status: "queued", confirmedBy: identity.email, ownerId: consoleInstanceId(), leaseUntil: nextLeaseUntil() },
      });
      if (changed.count !== 1) return false;
      await recordAudit({ action: "call.confirmed", actor: identity.email, actorId: identity.userId, callId, skill: skill.name, digest: row.digest }, tx);
      return true;
    }, TRANSACTION_OPTIONS)
    .catch((error: unknown) => {
      releaseQueueRoom();
      throw error;
    });
  if (!confirmed) {
    releaseQueueRoom();
    const current = await db().call.findUniqueOrThrow({ where: { id: callId }, select: { status: true } });
    throw new AppError("conflict", `call ${callId} is ${current.status}, not awaiting confirmation`);
  }
  runCall(callId, skill, row.args, releaseQueueRoom, row.digest);
  if (!wait) return { call: toCall(await db().call.findUniqueOrThrow({ where: { id: callId } })), finished: false };
  const finished = await waitForCall(callId);
  return { call: finished ?? toCall(await db().call.findUniqueOrThrow({ where: { id: callId } })), finished: true };
}

async function expireChangedCall(callId: string, actor: string, reason: string): Promise<void> {
  await db().$transaction(async (tx) => {
    const changed = await tx.call.updateMany({ where: { id: callId, status: "awaiting_confirmation" }, data: { status: "expired", error: reason, endedAt: new Date() } });
    if (changed.count !== 1) return;
    const call = await tx.call.findUniqueOrThrow({ where: { id: callId }, select: { skill: true, digest: true } });
    await recordAudit({ action: "call.expired", actor: "system", callId, skill: call.skill, digest: call.digest, details: { reason, noticedBy: actor } }, tx);
  }, TRANSACTION_OPTIONS);
}
