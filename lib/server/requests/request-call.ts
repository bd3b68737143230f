import { randomUUID } from "node:crypto";
import type { Call } from "@/lib/types/call";
import type { Identity } from "@/lib/types/identity";
import { recordRefusal, type AuditInput } from "../audit/audit-trail";
import { markRecorded } from "../audit/refused-attempts";
import { auditActor } from "../approvals/audit-actor";
import { requestApproval } from "../approvals/store-waiting-call";
import { checkArgs } from "../calls/check-args";
import { announceQueued, releaseQueueRoom, reserveQueueRoom } from "../calls/call-queue";
import { dropPayloads, storePayload } from "../calls/call-payloads";
import { toCall } from "../calls/call-record";
import { insertCall, type NewCallRow } from "../calls/call-transitions";
import { waitForCallEnd } from "../calls/wait-for-call";
import { config } from "../env";
import { AppError } from "../errors";
import { authorizeCall, resolveCallPersona } from "../policy/guard";
import { noteDigest } from "../skills/console-digests";
import { planOnConsole, rescanSkill } from "../skills/plan-on-console";
import { StaleSkillError } from "../skills/call-plan";
import { getRegistry } from "../skills/registry";
import { approvalsChanged } from "../approvals/approval-feed";

/** Input of requestCall: the parsed body of `POST /api/v1/skills/{name}/calls` and who sent it. */
export interface CallRequestInput {
  skillName: string;
  args: unknown;
  /** The persona named in the body (null: the token's own, or `default`). */
  persona: string | null;
  /** The worker name or label the call must run on (null: any eligible worker). */
  target: string | null;
  identity: Identity;
  /** When true, resolve only once the call reached an end state (or `signal` aborts: the client left). */
  wait: boolean;
  signal?: AbortSignal;
}

/**
 * Requests a call of a skill (DESIGN.md `POST /api/v1/skills/{name}/calls`; issue 4 points 3–5,
 * issue 9 points 2–3): looks the skill up (404 `not_found`; 409 when unavailable), resolves the persona
 * (403 for a token naming another persona, 400 for an unknown one), validates the args against the
 * skill's schema before anything is stored (400 `invalid_args`), asks the policy (403 `forbidden`,
 * audited `call.refused`), and plans the call once (planOnConsole: 409 when it cannot run), binding it
 * to the digest of the console's copy of the skill. A skill file changed on disk since the registry
 * loaded it (StaleSkillError) is rescanned and the request taken again from the top, once (`reloaded`). Then, by decision:
 * - run: reserves queue room (503 `unavailable` when full), stores the call `queued` for a worker
 *   holding that digest (and `target`, when named) and wakes the workers; with `wait`, resolves once a
 *   worker ended it (`finished` true), or when the client leaves (`finished` false);
 * - confirm: stores it `awaiting_confirmation` for a person's POST /calls/{id}/confirm;
 * - dual_sign: stores it `awaiting_approval` with a `pending` Approval (2 signatures).
 * Every call records requester, token, persona, digests and target, with `call.requested` (and
 * `approval.requested`) in the same transaction. Returns `{call, finished}`.
 */
export async function requestCall(input: CallRequestInput, reloaded = false): Promise<{ call: Call; finished: boolean }> {
  const registry = await getRegistry();
  const skill = registry.get(input.skillName);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(input.skillName)}`);
  if (!skill.available) throw new AppError("conflict", `${skill.name} is unavailable: ${skill.unavailableReason ?? "unknown reason"}`);

  const { identity } = input;
  const persona = await auditRefusal(identity, skill.name, input.persona, () => resolveCallPersona(identity, input.persona));
  const argsJson = await checkArgs(skill, input.args);
  const decision = await auditRefusal(identity, skill.name, persona.name, async () => authorizeCall(persona, skill));
  let plan: Awaited<ReturnType<typeof planOnConsole>>;
  try {
    plan = await planOnConsole(skill, argsJson);
  } catch (error) {
    if (!(error instanceof StaleSkillError)) throw error;
    // The skill file changed since the registry loaded it (the watcher has not caught up, or watching
    // is off): the policy must not judge these bytes by the old record. Rescan that skill and take the
    // request again from the top (args and policy against the new record), once; a file still changing
    // then is refused.
    if (reloaded) throw new AppError("conflict", error.message);
    await rescanSkill(skill);
    return requestCall(input, true);
  }
  noteDigest(registry, skill.name, plan.skill.digest);

  const id = randomUUID();
  let stored: Awaited<ReturnType<typeof insertCall>>;
  const row: NewCallRow = {
    id,
    skill: skill.name,
    skillKind: skill.kind,
    persona: persona.name,
    requestedBy: identity.email,
    requesterId: identity.userId,
    tokenId: identity.token?.id ?? null,
    tokenName: identity.token?.name ?? null,
    args: "",
    digest: plan.call.digest,
    skillDigest: plan.skill.digest,
    target: input.target,
  };
  const requested: AuditInput = {
    action: "call.requested",
    actor: auditActor(identity),
    actorId: identity.userId,
    callId: id,
    skill: skill.name,
    digest: plan.call.digest,
    details: { persona: persona.name, decision: decision.outcome, reason: decision.reason, class: skill.class, skillDigest: plan.skill.digest, target: input.target },
  };

  // Long args are written in parts before the row (call-payloads.ts); none may outlive a request
  // that then stored no call.
  try {
    row.args = await storePayload(id, "args", argsJson);
    if (decision.outcome === "confirm") {
      const waiting = await insertCall(row, "awaiting_confirmation", [requested]);
      approvalsChanged();
      return { call: toCall(waiting), finished: false };
    }
    if (decision.outcome === "dual_sign") return { call: toCall(await requestApproval({ ...row, requesterId: identity.userId }, plan, requested)), finished: false };
    await reserveQueueRoom(id, argsJson, 8 * config().argsLimitBytes);
    try {
      stored = await insertCall(row, "queued", [requested]);
    } catch (error) {
      releaseQueueRoom(id);
      throw error;
    }
  } catch (error) {
    await dropPayloads(id).catch(() => undefined);
    throw error;
  }
  announceQueued();
  if (!input.wait) return { call: toCall(stored), finished: false };
  const ended = await waitForCallEnd(id, input.signal);
  return ended ? { call: ended, finished: true } : { call: toCall(stored), finished: false };
}

/**
 * Runs a policy step of requestCall; when it refuses the call (AppError `forbidden`: the policy denies
 * it, or a token names another persona), writes `call.refused` (who, skill, persona, reason) to the
 * audit trail before rethrowing, so refused requests — an agent probing what it may run — are on the
 * record too. Nothing is stored either way.
 */
async function auditRefusal<T>(identity: Identity, skillName: string, persona: string | null, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof AppError && error.code === "forbidden") {
      await recordRefusal({ action: "call.refused", actor: auditActor(identity), actorId: identity.userId, skill: skillName, details: { persona, reason: error.message } });
      markRecorded(error);
    }
    throw error;
  }
}
