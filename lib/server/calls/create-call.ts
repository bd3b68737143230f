import { randomUUID } from "node:crypto";
import type { Call } from "@/lib/types/call";
import { db } from "../db";
import { AppError } from "../errors";
import { authorizeCall } from "../policy/guard";
import { getRegistry } from "../skills/registry";
import { checkArgs } from "./check-args";
import { toCall } from "./call-record";
import { nextLeaseUntil } from "./call-lease";
import { consoleInstanceId } from "./console-instance";
import { reserveQueueRoom, runCall, waitForCall } from "./call-runner";

/** Input of createCall: the parsed request body of `POST /api/v1/skills/{name}/calls`. */
export interface CreateCallInput {
  skillName: string;
  args: unknown;
  persona: string | null;
  requestedBy: string;
  /** When true, resolve only once the call reached an end state. */
  wait: boolean;
}

/**
 * Starts a call of a skill (DESIGN.md `POST /api/v1/skills/{name}/calls`): looks the skill up (404
 * `not_found`), validates the args against its schema with ajv before anything is spawned (400
 * `invalid_args` with the ajv errors in `details`; also for args nested deeper than MAX_JSON_DEPTH or
 * whose validation passes ARGS_VALIDATION_BUDGET_MS), runs the policy step (403 `approval_required` or
 * `forbidden`, nothing stored or started), reserves room in the queue of calls waiting for a slot (503
 * `unavailable` when it is full, nothing stored or started), stores the call `queued` with this console
 * as owner, and hands it to the runner. Returns `{call, finished}`: finished is true when `wait` was set and the call is at
 * its end state, false when it is still queued or running.
 */
export async function createCall(input: CreateCallInput): Promise<{ call: Call; finished: boolean }> {
  const registry = await getRegistry();
  const skill = registry.get(input.skillName);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(input.skillName)}`);
  if (!skill.available) throw new AppError("conflict", `${skill.name} is unavailable: ${skill.unavailableReason ?? "unknown reason"}`);

  const argsJson = await checkArgs(skill, input.args);
  authorizeCall(skill);

  const releaseQueueRoom = reserveQueueRoom(argsJson);
  const id = randomUUID();
  let row;
  try {
    row = await db().call.create({
      data: {
        id,
        skill: skill.name,
        skillKind: skill.kind,
        persona: input.persona,
        requestedBy: input.requestedBy,
        args: argsJson,
        status: "queued",
        ownerId: consoleInstanceId(),
        leaseUntil: nextLeaseUntil(),
      },
    });
  } catch (error) {
    releaseQueueRoom();
    throw error;
  }
  runCall(id, skill, argsJson, releaseQueueRoom);
  if (!input.wait) return { call: toCall(row), finished: false };
  const finished = await waitForCall(id);
  return { call: finished ?? toCall(await db().call.findUniqueOrThrow({ where: { id } })), finished: true };
}
