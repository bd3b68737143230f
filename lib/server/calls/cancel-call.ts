import type { Call } from "@/lib/types/call";
import { isTerminalStatus } from "@/lib/types/call";
import { roleAtLeast, type Identity } from "@/lib/types/identity";
import { cancelWaitingCall } from "../approvals/cancel-waiting-call";
import { db } from "../db";
import { AppError } from "../errors";
import { cancelLocalCall, waitForCall } from "./call-runner";
import { getCall } from "./read-calls";

/** How long a cancel waits for another console to stop a call it owns, in ms. */
const REMOTE_CANCEL_WAIT_MS = 30_000;

/**
 * Cancels a call (`POST /api/v1/calls/{id}/cancel`; DESIGN.md: the requester, or an operator and
 * above) and returns it once it reached its end state. A call awaiting a confirmation or signatures
 * ends `cancelled` at once (cancelWaitingCall; its approval `denied`). A queued or running one: for a
 * running call that is after its whole process group is gone; a call owned by another console gets a
 * stored cancel request that its owner applies on its next lease renewal. Throws `not_found`,
 * `forbidden` (neither the requester nor an operator), or `not_running` (409) when it already ended.
 */
export async function cancelCall(id: string, identity: Identity): Promise<Call> {
  const row = await db().call.findUnique({ where: { id }, select: { requesterId: true } });
  if (!row) throw new AppError("not_found", `no call with id ${JSON.stringify(id)}`);
  if (row.requesterId !== identity.userId && !roleAtLeast(identity.role, "operator")) {
    throw new AppError("forbidden", "only the requester or an operator may cancel this call");
  }
  let call = await getCall(id);
  if (call.status === "awaiting_confirmation" || call.status === "awaiting_approval") {
    if (await cancelWaitingCall(id, identity)) return getCall(id);
    // A confirmation or the last signature won the race: cancel the run it started.
    call = await getCall(id);
  }
  if (call.status !== "queued" && call.status !== "running") {
    throw new AppError("not_running", `call ${id} is ${call.status}, not queued or running`);
  }
  if (cancelLocalCall(id)) {
    const finished = waitForCall(id);
    return finished ? await finished : await getCall(id);
  }
  await db().call.updateMany({ where: { id, status: { in: ["queued", "running"] } }, data: { cancelRequestedAt: new Date() } });
  const deadline = Date.now() + REMOTE_CANCEL_WAIT_MS;
  for (;;) {
    const current = await getCall(id);
    if (isTerminalStatus(current.status) || Date.now() > deadline) return current;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
