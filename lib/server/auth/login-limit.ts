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

/**
 * Refuses a sign-in while too many attempts failed (issue 4 point 1; DESIGN.md: only failed attempts
 * count): LOGIN_MAX_FAILURES failures of one account from one address, or ten times that from one
 * address over any accounts, within LOGIN_WINDOW_SECONDS. Throws AppError `rate_limited` (429) with
 * `details.retryAfterSeconds` (the route sends it as Retry-After) until the window of the first
 * failure ends. Returns nothing when the attempt may go on.
 */
export async function assertLoginAllowed(email: string, address: string): Promise<void> {
  const { loginWindowSeconds } = config();
  const now = Date.now();
  for (const { key, limit } of keysOf(email, address)) {
    const row = await db().loginFailure.findUnique({ where: { key } });
    if (!row) continue;
    const windowEnds = row.windowStartedAt.getTime() + loginWindowSeconds * 1000;
    if (windowEnds <= now || row.count < limit) continue;
    const retryAfterSeconds = Math.max(1, Math.ceil((windowEnds - now) / 1000));
    throw new AppError("rate_limited", `too many failed sign-ins; try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}

/**
 * Counts one failed sign-in against the account at this address and the address. A window that has
 * ended starts over at 1. Atomic per key (one UPDATE … SET count = count + 1), so concurrent failures
 * from several consoles all count.
 */
export async function recordLoginFailure(email: string, address: string): Promise<void> {
  const { loginWindowSeconds } = config();
  const now = new Date();
  const windowStart = new Date(now.getTime() - loginWindowSeconds * 1000);
  for (const { key } of keysOf(email, address)) {
    const renewed = await db().loginFailure.updateMany({ where: { key, windowStartedAt: { lte: windowStart } }, data: { count: 1, windowStartedAt: now } });
    if (renewed.count > 0) continue;
    const counted = await db().loginFailure.updateMany({ where: { key }, data: { count: { increment: 1 } } });
    if (counted.count > 0) continue;
    try {
      await db().loginFailure.create({ data: { key, count: 1, windowStartedAt: now } });
    } catch {
      await db().loginFailure.updateMany({ where: { key }, data: { count: { increment: 1 } } });
    }
  }
}
