/**
 * A FIFO counting semaphore bounding how many calls run at once (SKILL_MAX_CONCURRENT_CALLS); calls
 * waiting for a slot stay `queued`.
 */
export class CallSlots {
  private active = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(private readonly limit: () => number) {}

  /**
   * Resolves true when a slot is taken (the caller must release() it exactly once), or false when
   * `signal` aborts first (a queued call cancelled while it waits: DESIGN.md says a queued call ends
   * `cancelled` without spawning, so it must not wait for a slot to free). Never rejects.
   */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.active < this.limit()) {
      this.active++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.active++;
          resolve(true);
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index !== -1) this.waiting.splice(index, 1);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Frees a slot and hands it to the oldest waiter. */
  release(): void {
    this.active--;
    const next = this.waiting.shift();
    if (next) next.grant();
  }
}
