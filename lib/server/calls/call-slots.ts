/**
 * A FIFO counting semaphore bounding how many calls run at once (SKILL_MAX_CONCURRENT_CALLS); calls
 * waiting for a slot stay `queued`.
 */
export class CallSlots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: () => number) {}

  /** Resolves when a slot is free; the caller must release() it exactly once. */
  acquire(): Promise<void> {
    if (this.active < this.limit()) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => { this.active++; resolve(); }));
  }

  /** Frees a slot and hands it to the oldest waiter. */
  release(): void {
    this.active--;
    const next = this.waiting.shift();
    if (next) next();
  }
}
