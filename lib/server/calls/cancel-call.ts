import type { Call } from "@/lib/types/call";
import { isTerminalStatus } from "@/lib/types/call";
import { db } from "../db";
import { AppError } from "../errors";
import { cancelLocalCall, waitForCall } from "./call-runner";
import { getCall } from "./read-calls";

/** How long a cancel waits for another console to stop a call it owns, in ms. */
const REMOTE_CANCEL_WAIT_MS = 30_000;

/**
 * Cancels a queued or running call (`POST /api/v1/calls/{id}/cancel`) and returns it once it reached
 * its end state — for a running call that is after its whole process group is gone (DESIGN.md). A call
 * owned by another console gets a stored cancel request that its owner applies on its next lease
 * renewal. Throws `not_found`, or `not_running` (409) when the call is already over or awaits a person.
 */
export async function cancelCall(id: string): Promise<Call> {
  const call = await getCall(id);
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
