import { expect } from "vitest";
import { sqliteConnection } from "@/lib/server/db";
import { waitUntil } from "../executor/helpers";

/**
 * Counts, from now until `stop()`, the statements that queue for the SQLite connection's lock. Called
 * inside a transaction (which holds the lock), each one counted is a statement made to wait for it:
 * the proof that a statement is pending because of the transaction, not merely slow.
 */
export async function countLockWaits(): Promise<{ waits: () => number; stop: () => void }> {
  const { lock } = await sqliteConnection();
  const acquire = lock.acquire;
  let waits = 0;
  lock.acquire = function (this: typeof lock) {
    waits += 1;
    return acquire.call(this);
  };
  return { waits: () => waits, stop: () => void Reflect.deleteProperty(lock, "acquire") };
}

/** Inside a transaction: waits until `count` statements queue for the lock, then stops counting. */
export async function untilWaiting(count: number, counter: { waits: () => number; stop: () => void }): Promise<void> {
  try {
    await waitUntil(() => counter.waits() >= count, `${count} statement(s) waiting for the open transaction`);
    expect(counter.waits()).toBe(count);
  } finally {
    counter.stop();
  }
}
