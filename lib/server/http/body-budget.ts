import { clientAddress } from "../auth/client-address";
import { AppError } from "../errors";

/**
 * Request bodies in flight, bounded (issue 10 point 1 and "bad input loses nothing"): a body is kept
 * whole in memory while it is read and checked, so 120 connections of one operator token each
 * sending 7 MB of a call body and then stalling held 820 MiB of the console's memory for as long as
 * they liked, and their scanning stalled the event loop 70–170 ms. Every body readBodyBytes reads
 * counts against its owner's share (the person behind a session or an API token — their tokens
 * count with them —, a worker token, or the client address when nobody is identified) and against
 * the console's total, by the bytes that actually arrived (a declared Content-Length counted up front
 * let 32 sockets that sent nothing hold the whole budget, and every body of everyone answered 503);
 * past either it is refused before more is read. One owner may also have at most
 * BODIES_PER_OWNER_MAX bodies being read at once (16,384 slow logins from six addresses), the console
 * BODIES_IN_FLIGHT_MAX. A body must keep arriving: one that sends nothing for BODY_IDLE_MS, or has
 * not ended BODY_DEADLINE_MS after its first read, is cut off.
 */

/** Most bytes of request bodies one owner may have in flight at once (8 largest call bodies; a worker's finish report and more). */
export const BODY_BYTES_PER_OWNER_MAX = 64 * 1024 * 1024;
/** Most bytes of request bodies in flight at once on this console. */
export const BODY_BYTES_IN_FLIGHT_MAX = 256 * 1024 * 1024;
/** Most bodies one owner may have being read at once. */
export const BODIES_PER_OWNER_MAX = 64;
/** Most bodies being read at once on this console. */
export const BODIES_IN_FLIGHT_MAX = 2048;
/** Longest wait for the next bytes of a body, in ms, before it is cut off (408). */
export const BODY_IDLE_MS = 10_000;
/** Longest a body may take from its first read to its end, in ms, before it is cut off (408). */
export const BODY_DEADLINE_MS = 60_000;

const LEDGER_KEY = Symbol.for("skill-console.body-budget");
const ledger: { total: number; byOwner: Map<string, number>; bodies: number; bodiesByOwner: Map<string, number> } = ((globalThis as Record<symbol, unknown>)[LEDGER_KEY] ??= {
  total: 0,
  byOwner: new Map(),
  bodies: 0,
  bodiesByOwner: new Map(),
}) as { total: number; byOwner: Map<string, number>; bodies: number; bodiesByOwner: Map<string, number> };

const OWNERS_KEY = Symbol.for("skill-console.body-owners");
const owners: WeakMap<Request, string> = ((globalThis as Record<symbol, unknown>)[OWNERS_KEY] ??= new WeakMap()) as WeakMap<Request, string>;

/**
 * Names who is behind `request` for the body budget (`person:<user id>`, `worker-token:<id>`), once
 * the route identified them (apiRoute, workerRoute). Without it, the body counts for its client address.
 */
export function noteBodyOwner(request: Request, owner: string): void {
  owners.set(request, owner);
}

/** A body's claim on the budget: grown as its bytes arrive, released (idempotently) when it has been read. */
export interface BodyReservation {
  /** Counts `bytes` more of the body (as they arrive); throws AppError `rate_limited` (429) past the owner's share, `unavailable` (503) past the total. */
  grow(bytes: number): void;
  release(): void;
}

/**
 * Opens the reservation of `request`'s body (no bytes yet: they count as they arrive). Throws AppError
 * `rate_limited` (429) when its owner already has BODIES_PER_OWNER_MAX bodies being read,
 * `unavailable` (503) past BODIES_IN_FLIGHT_MAX in all.
 */
export function reserveBody(request: Request): BodyReservation {
  const owner = owners.get(request) ?? `address:${clientAddress(request)}`;
  const ownerBodies = ledger.bodiesByOwner.get(owner) ?? 0;
  if (ownerBodies >= BODIES_PER_OWNER_MAX) {
    throw new AppError("rate_limited", `${describe(owner)} has ${BODIES_PER_OWNER_MAX} request bodies on the way already, the most for one sender; retry when they are done`, {
      retryAfterSeconds: 1,
    });
  }
  if (ledger.bodies >= BODIES_IN_FLIGHT_MAX) throw new AppError("unavailable", `the console is reading ${BODIES_IN_FLIGHT_MAX} request bodies, its most; retry shortly`, { retryAfterSeconds: 1 });
  ledger.bodies += 1;
  ledger.bodiesByOwner.set(owner, ownerBodies + 1);
  let held = 0;
  let released = false;
  const reservation: BodyReservation = {
    grow(bytes) {
      if (released || bytes <= 0) return;
      const ownerHeld = ledger.byOwner.get(owner) ?? 0;
      if (ownerHeld + bytes > BODY_BYTES_PER_OWNER_MAX) {
        throw new AppError("rate_limited", `request bodies of ${describe(owner)} in flight would pass ${BODY_BYTES_PER_OWNER_MAX / 1024 / 1024} MiB, the most for one sender; retry when they are done`, {
          retryAfterSeconds: 1,
        });
      }
      if (ledger.total + bytes > BODY_BYTES_IN_FLIGHT_MAX) {
        throw new AppError("unavailable", `request bodies in flight would pass ${BODY_BYTES_IN_FLIGHT_MAX / 1024 / 1024} MiB, the console's most; retry shortly`, { retryAfterSeconds: 1 });
      }
      ledger.byOwner.set(owner, ownerHeld + bytes);
      ledger.total += bytes;
      held += bytes;
    },
    release() {
      if (released) return;
      released = true;
      ledger.total -= held;
      const left = (ledger.byOwner.get(owner) ?? held) - held;
      if (left <= 0) ledger.byOwner.delete(owner);
      else ledger.byOwner.set(owner, left);
      ledger.bodies -= 1;
      const bodiesLeft = (ledger.bodiesByOwner.get(owner) ?? 1) - 1;
      if (bodiesLeft <= 0) ledger.bodiesByOwner.delete(owner);
      else ledger.bodiesByOwner.set(owner, bodiesLeft);
    },
  };
  return reservation;
}

/** Bytes of request bodies in flight now, in all and of `owner` (for tests and diagnostics). */
export function bodyBytesInFlight(owner?: string): number {
  return owner === undefined ? ledger.total : (ledger.byOwner.get(owner) ?? 0);
}

function describe(owner: string): string {
  if (owner.startsWith("person:")) return "this person (their API tokens included)";
  if (owner.startsWith("worker-token:")) return "this worker token";
  return `address ${owner.slice("address:".length)}`;
}

/** Bodies being read now, in all and of `owner` (for tests and diagnostics). */
export function bodiesInFlight(owner?: string): number {
  return owner === undefined ? ledger.bodies : (ledger.bodiesByOwner.get(owner) ?? 0);
}
