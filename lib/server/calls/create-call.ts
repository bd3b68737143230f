import { randomUUID } from "node:crypto";
import type { Call } from "@/lib/types/call";
import type { Identity } from "@/lib/types/identity";
import { recordAudit } from "../audit/audit-trail";
import { auditActor } from "../approvals/audit-actor";
import { computeCallDigest, type CallDigest } from "../approvals/call-digest";
import { requestApproval, storeAwaitingConfirmation } from "../approvals/store-waiting-call";
import { TRANSACTION_OPTIONS } from "../approvals/transaction-options";
import { db } from "../db";
import { AppError } from "../errors";
import { authorizeCall, resolveCallPersona } from "../policy/guard";
import { getRegistry } from "../skills/registry";
import { checkArgs } from "./check-args";
import { toCall } from "./call-record";
import { nextLeaseUntil } from "./call-lease";
import { consoleInstanceId } from "./console-instance";
import { reserveQueueRoom, runCall, waitForCall } from "./call-runner";
import { planExecution } from "./execution-plan";
import { config } from "../env";

/** Input of createCall: the parsed request body of `POST /api/v1/skills/{name}/calls` and who sent it. */
export interface CreateCallInput {
  skillName: string;
  args: unknown;
  /** The persona named in the body (null: the token's own, or `default`). */
  persona: string | null;
  identity: Identity;
  /** When true, resolve only once the call reached an end state. */
  wait: boolean;
}

/**
 * Starts a call of a skill (DESIGN.md `POST /api/v1/skills/{name}/calls`, issue 4 points 3–5): looks the
 * skill up (404 `not_found`), resolves the persona (resolveCallPersona: 403 for a token naming another
 * persona, 400 for an unknown one), validates the args against the skill's schema before anything is
 * stored (400 `invalid_args`), asks the policy (403 `forbidden` with the reason, nothing stored), and
 * plans the run (409 `conflict` when a native script cannot run: it escapes scripts/, or needs an
 * interpreter outside the allow-list), and freezes the call's digest (409 `conflict` when the skill's
 * files cannot be read, except for a call that runs at once, which the runner's allow-list recheck
 * then fails). Then, by decision:
 * - run: reserves queue room (503 `unavailable` when full), stores the call `queued` owned by this
 *   console and runs it; `finished` is true when `wait` was set and the call reached its end state;
 * - confirm: stores it `awaiting_confirmation` for a person's POST /calls/{id}/confirm;
 * - dual_sign: stores it `awaiting_approval` with a `pending` Approval (2 signatures, expires after
 *   APPROVAL_TTL_SECONDS).
 * Every call records requester, token, persona and digest, with a `call.requested` audit entry (and
 * `approval.requested`) written in the same transaction. Returns `{call, finished}`.
 */
export async function createCall(input: CreateCallInput): Promise<{ call: Call; finished: boolean }> {
  const registry = await getRegistry();
  const skill = registry.get(input.skillName);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(input.skillName)}`);
  if (!skill.available) throw new AppError("conflict", `${skill.name} is unavailable: ${skill.unavailableReason ?? "unknown reason"}`);

  const { identity } = input;
  const persona = await auditRefusal(identity, skill.name, input.persona, () => resolveCallPersona(identity, input.persona));
  const argsJson = await checkArgs(skill, input.args);
  const decision = await auditRefusal(identity, skill.name, persona.name, async () => authorizeCall(persona, skill));
  // A native script that cannot run (escaping symlink, interpreter outside the allow-list) is refused
  // before anything is stored; the runner checks the same again just before the spawn.
  const plan = planExecution(skill, argsJson, config());
  if (typeof plan === "string") throw new AppError("conflict", `${skill.name} cannot run this call: ${plan}`);
  const id = randomUUID();
  const newCall = (digest: string | null) => ({
    id,
    skill: skill.name,
    skillKind: skill.kind,
    persona: persona.name,
    requestedBy: identity.email,
    requesterId: identity.userId,
    tokenId: identity.token?.id ?? null,
    tokenName: identity.token?.name ?? null,
    args: argsJson,
    digest,
  });
  const requested = (digest: string | null) => ({
    action: "call.requested",
    actor: auditActor(identity),
    actorId: identity.userId,
    callId: id,
    skill: skill.name,
    digest,
    details: { persona: persona.name, decision: decision.outcome, reason: decision.reason, class: skill.class },
  });

  if (decision.outcome !== "run") {
    // A call that waits for people is always bound to what it will run.
    let digest: CallDigest;
    try {
      digest = computeCallDigest(skill, argsJson, plan);
    } catch (error) {
      throw new AppError("conflict", `${skill.name} cannot be read to bind the call to it (${(error as NodeJS.ErrnoException).code ?? "unreadable"}); reload the skills`);
    }
    const row =
      decision.outcome === "confirm"
        ? await storeAwaitingConfirmation(newCall(digest.digest), requested(digest.digest))
        : await requestApproval(newCall(digest.digest), digest, requested(digest.digest));
    return { call: toCall(row), finished: false };
  }

  // A call that runs now and whose files cannot be read is failed by the runner's own allow-list
  // recheck (recheckEntryBeforeSpawn), as before digests existed.
  let digest: string | null = null;
  try {
    digest = computeCallDigest(skill, argsJson, plan).digest;
  } catch {
    digest = null;
  }
  const releaseQueueRoom = reserveQueueRoom(argsJson);
  let row;
  try {
    row = await db().$transaction(async (tx) => {
      const created = await tx.call.create({ data: { ...newCall(digest), status: "queued", ownerId: consoleInstanceId(), leaseUntil: nextLeaseUntil() } });
      await recordAudit(requested(digest), tx);
      return created;
    }, TRANSACTION_OPTIONS);
  } catch (error) {
    releaseQueueRoom();
    throw error;
  }
  runCall(id, skill, argsJson, releaseQueueRoom, digest);
  if (!input.wait) return { call: toCall(row), finished: false };
  const finished = await waitForCall(id);
  return { call: finished ?? toCall(await db().call.findUniqueOrThrow({ where: { id } })), finished: true };
}

/**
 * Runs a policy step of createCall; when it refuses the call (AppError `forbidden`: the policy denies
 * it, or a token names another persona), writes `call.refused` (who, skill, persona, reason) to the
 * audit trail before rethrowing, so refused requests — an agent probing what it may run — are on the
 * record too. Nothing is stored or started either way.
 */
async function auditRefusal<T>(identity: Identity, skillName: string, persona: string | null, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof AppError && error.code === "forbidden") {
      await recordAudit({ action: "call.refused", actor: auditActor(identity), actorId: identity.userId, skill: skillName, details: { persona, reason: error.message } });
    }
    throw error;
  }
}
