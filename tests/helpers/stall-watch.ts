/**
 * The event loop's worst stall while `work` runs, as a concurrent client would feel it: the longest
 * gap between ticks of a 5 ms timer, the last gap (to the end of `work`) included. Resolves `work`'s
 * value and `stallMs`; rejects as `work` does.
 */
export async function worstStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  try {
    const value = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { value, stallMs };
  } finally {
    clearInterval(ticker);
  }
}
