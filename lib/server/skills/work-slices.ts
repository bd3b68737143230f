/**
 * Longest stretch, in ms, a walk of skill folders runs synchronous file-system calls before it yields
 * to the event loop. A small skill folder (the usual case: a manifest and a script or two) is read in
 * one slice, without the dozen thread-pool round trips an asynchronous walk costs per folder; a large
 * walk never holds the event loop longer than about this, plus one system call (issue 10 point 1).
 */
export const SLICE_MS = 4;

/** Yields to the event loop once the current slice of synchronous work has run SLICE_MS (skill-folder.ts, the native loader). */
export class WorkSlices {
  private started = performance.now();

  /** Resolves at once while the slice lasts; else after one turn of the event loop (setImmediate), starting a new slice. */
  async check(): Promise<void> {
    if (performance.now() - this.started < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
