import { db } from "../db";
import { AppError } from "../errors";
import { config } from "../env";

/** The keys a failed sign-in counts against: the account at this address, and the address alone. */
function keysOf(email: string, address: string): Array<{ key: string; limit: number }> {
  const { loginMaxFailures } = config();
  return [
    { key: `account+address:${email}|${address}`, limit: loginMaxFailures },
    { key: `address:${address}`, limit: loginMaxFailures * 10 },
  ];
}

/** One reserved attempt on one key: the key and the start of the window it was counted in. */
interface Reservation {
  key: string;
  windowStartedAt: Date;
}

/**
 * Counts one attempt on `key` if it is under `limit` in the current window, atomically (a window that
 * has ended starts over). Returns the reservation, or the window's start when the key is at its limit.
 */
async function reserveKey(key: string, limit: number, now: Date, windowSeconds: number): Promise<Reservation | { fullSince: Date }> {
  const windowStart = new Date(now.getTime() - windowSeconds * 1000);
  await db().loginFailure.updateMany({ where: { key, windowStartedAt: { lte: windowStart } }, data: { count: 0, windowStartedAt: now } });
  for (let attempt = 0; attempt < 2; attempt++) {
    // One conditional UPDATE … SET count = count + 1 WHERE count < limit: concurrent attempts (in this
    // console or another) can never all pass a check made before any of them was counted.
    const counted = await db().loginFailure.updateMany({ where: { key, count: { lt: limit } }, data: { count: { increment: 1 } } });
    const row = await db().loginFailure.findUnique({ where: { key } });
    if (counted.count === 1 && row) return { key, windowStartedAt: row.windowStartedAt };
    if (row) return { fullSince: row.windowStartedAt };
    try {
      await db().loginFailure.create({ data: { key, count: 1, windowStartedAt: now } });
      return { key, windowStartedAt: now };
    } catch {
      // Another attempt created the row meanwhile: count against it.
    }
  }
  const row = await db().loginFailure.findUniqueOrThrow({ where: { key } });
  return { fullSince: row.windowStartedAt };
}

async function release(reservations: readonly Reservation[]): Promise<void> {
  for (const { key, windowStartedAt } of reservations) {
    await db().loginFailure.updateMany({ where: { key, windowStartedAt, count: { gt: 0 } }, data: { count: { decrement: 1 } } });
  }
}

/**
 * Reserves one sign-in attempt (issue 4 point 1; DESIGN.md: only failed attempts count) before the
 * password is checked: the attempt is counted at once against the account at this address
 * (LOGIN_MAX_FAILURES per LOGIN_WINDOW_SECONDS) and the address (ten times that), each with an atomic
 * conditional increment, so a parallel burst of guesses gets no more checks than the limit allows.
 * Throws AppError `rate_limited` (429) with `details.retryAfterSeconds` (the route sends it as
 * Retry-After) when a key is at its limit, counting nothing. Returns `succeeded()`, to call when the
 * password was right: it takes the attempt back, so successful sign-ins never add up to a lock-out;
 * a failed attempt simply stays counted.
 */
export async function reserveLoginAttempt(email: string, address: string): Promise<{ succeeded: () => Promise<void> }> {
  const { loginWindowSeconds } = config();
  const now = new Date();
  const reserved: Reservation[] = [];
  for (const { key, limit } of keysOf(email, address)) {
    const outcome = await reserveKey(key, limit, now, loginWindowSeconds);
    if ("fullSince" in outcome) {
      await release(reserved);
      const windowEnds = outcome.fullSince.getTime() + loginWindowSeconds * 1000;
      const retryAfterSeconds = Math.max(1, Math.ceil((windowEnds - now.getTime()) / 1000));
      throw new AppError("rate_limited", `too many failed sign-ins; try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
    }
    reserved.push(outcome);
  }
  return { succeeded: () => release(reserved) };
}
