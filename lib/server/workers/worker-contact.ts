import { config } from "../env";

/** When each worker session last reached this console with its own token, in ms since the epoch (Date.now()). */
const CONTACT_KEY = Symbol.for("skill-console.worker-contact");
const lastContact = ((globalThis as Record<symbol, Map<string, number> | undefined>)[CONTACT_KEY] ??= new Map<string, number>());

/**
 * Notes that worker session `workerId` just reached the console (an authenticated request of its own:
 * a claim poll, a lease renewal, events, a finish), in memory, whether or not the database then took
 * what it sent. Cheap; never throws.
 */
export function noteWorkerContact(workerId: string, now = Date.now()): void {
  lastContact.set(workerId, now);
}

/**
 * Whether worker session `workerId` reached this console within the last lease (CALL_LEASE_MS). A
 * call whose lease lapsed while its worker kept calling — the database refused the renewals, busy
 * with another process's lock — is not the worker's fault: its finish is still coming and must not
 * find the call `interrupted` (issue 10 point 3: a result, once produced, is never lost). Forgotten on
 * restart: then only the stored lease counts.
 */
export function workerInContact(workerId: string | null, now = Date.now()): boolean {
  if (workerId === null) return false;
  const at = lastContact.get(workerId);
  return at !== undefined && now - at <= config().leaseMs;
}
