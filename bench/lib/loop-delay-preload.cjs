/**
 * Event-loop delay preload for `bench/run.mjs --only=soak` (loaded with --require through NODE_OPTIONS):
 * in the main thread of the console's server process (scripts/console-server.mjs) only, measures the
 * event loop's delay with perf_hooks.monitorEventLoopDelay (10 ms resolution) and appends one JSON line
 * per second (or per $BENCH_LOOP_DELAY_INTERVAL_MS) to $BENCH_LOOP_DELAY_FILE: `{at, maxMs, p99Ms, meanMs, gcMaxMs,
 * gcTotalMs, rssMiB, heapUsedMiB, heapTotalMiB, externalMiB, arrayBuffersMiB}` of that window, then resets. The
 * soak bench reads the worst second from it (issue 10 point 6: the worst event-loop stall). Other
 * processes that inherit NODE_OPTIONS (prisma, next build, the worker) are left alone.
 */
"use strict";
const { isMainThread } = require("node:worker_threads");
const argv = process.argv.slice(1);
if (isMainThread && /console-server\.mjs$/.test(argv[0] ?? "") && process.env.BENCH_LOOP_DELAY_FILE) {
  const fs = require("node:fs");
  const { monitorEventLoopDelay } = require("node:perf_hooks");
  const file = process.env.BENCH_LOOP_DELAY_FILE;
  const { PerformanceObserver } = require("node:perf_hooks");
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let gcMaxMs = 0;
  let gcTotalMs = 0;
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
      gcTotalMs += entry.duration;
    }
  });
  gcObserver.observe({ entryTypes: ["gc"] });
  const MiB = 1024 * 1024;
  const timer = setInterval(() => {
    const memory = process.memoryUsage();
    const line = {
      at: Date.now(),
      maxMs: histogram.max / 1e6,
      p99Ms: histogram.percentile(99) / 1e6,
      meanMs: histogram.mean / 1e6,
      gcMaxMs,
      gcTotalMs,
      rssMiB: memory.rss / MiB,
      heapUsedMiB: memory.heapUsed / MiB,
      heapTotalMiB: memory.heapTotal / MiB,
      externalMiB: memory.external / MiB,
      arrayBuffersMiB: memory.arrayBuffers / MiB,
    };
    histogram.reset();
    gcMaxMs = 0;
    gcTotalMs = 0;
    try {
      fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // the bench reads what is there
    }
  }, Number(process.env.BENCH_LOOP_DELAY_INTERVAL_MS) || 1000);
  timer.unref();
  if (process.env.BENCH_STALL_GAPS_FILE) {
    // Investigation aid: a 1 ms interval timer; each time it fires more than 25 ms late, the delay's end
    // (process.hrtime in µs, the clock of V8's CPU profiles) and length are appended to
    // $BENCH_STALL_GAPS_FILE as `{endUs, gapMs}`, for `bench/profile-summary.mjs --stalls=FILE` (with
    // --cpu-prof) to show what ran meanwhile.
    let last = process.hrtime.bigint();
    setInterval(() => {
      const now = process.hrtime.bigint();
      const gapMs = Number(now - last) / 1e6;
      last = now;
      if (gapMs > 25) {
        try {
          fs.appendFileSync(process.env.BENCH_STALL_GAPS_FILE, `${JSON.stringify({ endUs: Number(now / 1000n), gapMs })}\n`);
        } catch {
          // diagnosis only
        }
      }
    }, 1).unref();
  }
  if (process.env.BENCH_LONG_TASKS_FILE) {
    // Investigation aid: every callback of the main thread that runs longer than 20 ms, with the type
    // of its async resource and where that resource was made (a stack captured at each resource's
    // creation: slow, for diagnosis only), appended to $BENCH_LONG_TASKS_FILE as JSON lines.
    const asyncHooks = require("node:async_hooks");
    const origins = new Map();
    const started = new Map();
    asyncHooks
      .createHook({
        init(id, type) {
          const holder = {};
          Error.captureStackTrace(holder);
          origins.set(id, { type, stack: holder.stack.split("\n").slice(2, 14).map((line) => line.trim()).filter((line) => !line.includes("node:internal/async_hooks")) });
        },
        before(id) {
          started.set(id, performance.now());
        },
        after(id) {
          const from = started.get(id);
          started.delete(id);
          if (from === undefined) return;
          const ms = performance.now() - from;
          if (ms > 20) {
            try {
              fs.appendFileSync(process.env.BENCH_LONG_TASKS_FILE, `${JSON.stringify({ at: Date.now(), ms, ...origins.get(id) })}\n`);
            } catch {
              // diagnosis only
            }
          }
        },
        destroy(id) {
          origins.delete(id);
        },
      })
      .enable();
  }
  if (process.env.BENCH_HEAP_SNAPSHOT_DIR) {
    // Investigation aid: `kill -USR2 <console pid>` writes a heap snapshot there (the soak takes
    // one after its warm-up and one at its end when the variable is set).
    process.on("SIGUSR2", () => {
      const v8 = require("node:v8");
      const path = require("node:path");
      v8.writeHeapSnapshot(path.join(process.env.BENCH_HEAP_SNAPSHOT_DIR, `console-${Date.now()}.heapsnapshot`));
    });
  }
}
