import { AppError } from "../errors";
import { clientAddress } from "../auth/client-address";
import { recordRefusal } from "./audit-trail";

/** Refusals recorded already by the step that refused (e.g. `call.refused`), so the route does not record them twice. */
const recorded = new WeakSet<object>();

/** Marks `error` as already on the audit trail (the step that threw it wrote its own entry). Returns it. */
export function markRecorded<T extends object>(error: T): T {
  recorded.add(error);
  return error;
}

/** Errors that are refused attempts though their code is not `forbidden` (a signer's 409 signing again), so the route records them too. */
const refusals = new WeakSet<object>();

/**
 * Marks `error` as a refused attempt to record like a 403 (recordRefusedAttempt), whatever its code:
 * an approver signing an approval they signed already, or again after a demotion voided their
 * signature (409 `conflict`; issue 10 point 4: every refused signing attempt is on the trail). Returns it.
 */
export function markRefusal<T extends object>(error: T): T {
  refusals.add(error);
  return error;
}

/** Refusals about an approval or call the refusing step loaded (markAboutExisting). */
const aboutExisting = new WeakSet<object>();

/**
 * Marks `error` as a refusal about an approval or call that exists (the refusing step loaded it: a
 * requester signing their own call, a demoted approver, a viewer cancelling): its entry is always
 * written, never folded into a summary by the refusal budgets, since its subject cannot be varied at
 * will and a flood of other refusals must not hide it (recordRefusal `aboutExisting`). Returns it.
 */
export function markAboutExisting<T extends object>(error: T): T {
  aboutExisting.add(error);
  return error;
}

/** The approval or call a request path names, for the entry's approvalId / callId columns. */
function subjectOf(path: string): { approvalId?: string; callId?: string } {
  const approval = /^\/api\/v1\/approvals\/([^/]+)/.exec(path);
  if (approval) return { approvalId: decodeURIComponent(approval[1]!) };
  const call = /^\/api\/v1\/calls\/([^/]+)/.exec(path);
  return call ? { callId: decodeURIComponent(call[1]!) } : {};
}

/**
 * Records a refused attempt (issue 10 point 4: a requester signing their own call, a role refusal, a
 * bad origin — every 403 `forbidden` or `bad_origin` an API route answers, and errors marked with
 * markRefusal) as an `access.refused`
 * audit entry with who (`actor`, or `anonymous` before anyone was identified), what (method, path, the
 * approval or call it names) and why (the error's code and message), and the client address. Other
 * errors, and refusals the refusing step recorded itself (markRecorded), are left alone. A busy
 * database delays the entry, never loses it (recordRefusal); another failure to write is logged; the
 * refusal stands either way. Never throws.
 */
export async function recordRefusedAttempt(request: Request, error: unknown, who: { actor: string; actorId: string | null } | null): Promise<void> {
  if (!(error instanceof AppError) || (error.code !== "forbidden" && error.code !== "bad_origin" && !refusals.has(error)) || recorded.has(error)) return;
  let path = "";
  try {
    path = new URL(request.url).pathname;
  } catch {
    // An unparsable URL still gets its entry, without a path.
  }
  try {
    await recordRefusal({
      action: "access.refused",
      actor: who?.actor ?? "anonymous",
      actorId: who?.actorId ?? null,
      ...subjectOf(path),
      details: { method: request.method, path, code: error.code, reason: error.message, address: clientAddress(request) },
    }, { aboutExisting: aboutExisting.has(error) });
  } catch (failure) {
    console.error(`audit: could not record a refused ${request.method} ${path}:`, failure);
  }
}
