import "server-only";
import { announce, onReplicaCatchUp, onReplicaMessage } from "../replica-bus";

/**
 * Changes of what a person may do that outlive a request: a sign-out, a revoked API token, a new
 * role. Requests identify their caller afresh each time, so they need nothing of this; long-lived
 * event streams do (DESIGN.md "HTTP interface": a stream opened before a sign-out, a revocation or a
 * demotion must not go on delivering). Each change is told to this replica's listeners at once and to
 * every other replica over the replica bus (kind `access`).
 */

/** A listener: `userId` is the person whose access changed, or null for "anyone's may have" (after a bus outage). */
type Listener = (userId: string | null) => void;

const ACCESS_KEY = Symbol.for("skill-console.access-changes");
const listeners = ((globalThis as Record<symbol, unknown>)[ACCESS_KEY] ??= new Set<Listener>()) as Set<Listener>;

function tell(userId: string | null): void {
  for (const listener of [...listeners]) {
    try {
      listener(userId);
    } catch (error) {
      console.error("access changes: a listener failed:", error);
    }
  }
}

/**
 * Says that `userId`'s access changed (signed out, a token revoked, a role changed). Call it after the
 * change is committed: listeners identify their callers again at once. Never throws.
 */
export function accessChanged(userId: string): void {
  tell(userId);
  announce({ kind: "access", userId });
}

/** Runs `listener` on every access change of this replica's and of the others'; returns the unsubscribe function. */
export function onAccessChanged(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// Anything but a string (another version's message) checks everyone: deny when in doubt.
onReplicaMessage("access", (message) => tell(typeof message.userId === "string" ? message.userId : null));
// A LISTEN outage may have hidden another replica's sign-out or revocation: everyone is checked again.
onReplicaCatchUp("access", () => tell(null));
