import { databaseProvider } from "./db";
import { statements } from "./db-statements";

/**
 * The time every console replica agrees on, for leases (issue 11 point 4: a replica whose clock is 30 s
 * off must not steal live leases). On PostgreSQL it is the database server's clock: this process's
 * clock plus an offset sampled from `clock_timestamp()` at most every SAMPLE_EVERY_MS (half the round
 * trip counted on each side). A replica running ahead then sets and judges leases as the others do;
 * with its own clock it ended live calls `interrupted`, and set leases that outlived their worker by
 * its skew. On SQLite (one console per file) it is this process's clock.
 */

/** Longest an offset is used before it is sampled again, in ms (performance.now, not the wall clock). */
const SAMPLE_EVERY_MS = 10_000;

interface ClockState {
  offsetMs: number;
  sampledAt: number;
  pending: Promise<void> | null;
}

const CLOCK_KEY = Symbol.for("skill-console.database-clock");
const state = ((globalThis as Record<symbol, ClockState | undefined>)[CLOCK_KEY] ??= { offsetMs: 0, sampledAt: -Infinity, pending: null });

async function sample(): Promise<void> {
  const before = Date.now();
  const [row] = await statements().$queryRaw<Array<{ ms: number }>>`SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::float8 AS "ms"`;
  const after = Date.now();
  state.offsetMs = Number(row!.ms) - (before + after) / 2;
  state.sampledAt = performance.now();
}

/**
 * Now, as the replicas agree on it (see above). Resolves a Date; rejects with the database's error
 * when a sample is due and the database cannot answer it (then 503, db-busy.ts).
 */
export async function agreedNow(): Promise<Date> {
  if (databaseProvider() !== "postgresql") return new Date();
  if (performance.now() - state.sampledAt > SAMPLE_EVERY_MS) {
    state.pending ??= sample().finally(() => {
      state.pending = null;
    });
    await state.pending;
  }
  return new Date(Date.now() + state.offsetMs);
}

/** Forgets the sampled offset, so the next agreedNow samples again (a test that moved this process's clock). */
export function resetDatabaseClockForTests(): void {
  state.offsetMs = 0;
  state.sampledAt = -Infinity;
}
