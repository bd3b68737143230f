/**
 * CPU-profiling preload for `bench/run.mjs --cpu-prof` (Node 20 refuses --cpu-prof in NODE_OPTIONS, but
 * accepts --require): in the main thread of the console's server process (scripts/console-server.mjs)
 * and of its local worker (.worker/worker.mjs, which inherits NODE_OPTIONS through
 * scripts/local-worker.mjs), starts the V8 sampling profiler through node:inspector and, when the
 * process exits, writes $BENCH_CPU_PROF_DIR/CPU.<date>.<pid>.0.<part>.cpuprofile (the --cpu-prof
 * naming, pid in the 4th field, part in the 6th). SIGUSR2 writes the profile so far (part 0, 1, …)
 * and starts a new one, so a run can be cut into phases (bench/run.mjs does it between phases).
 * At start it writes process.<pid>.json (argv, start time: bench/profile-summary.mjs warns about code
 * rebuilt after it) and, for the worker, a copy of its bundle as bundle.<pid>.mjs (a rebuild while the
 * bench runs must not change how its frames are named); with each part, memory.<pid>.<part>.json
 * (process.memoryUsage() then: rss, heapTotal, heapUsed, external, arrayBuffers). Other processes that inherit NODE_OPTIONS
 * (prisma, next build) are left alone.
 */
"use strict";
const { isMainThread } = require("node:worker_threads");
const argv = process.argv.slice(1);
const isProfiled = /(console-server\.mjs|\.worker\/worker\.mjs)$/.test(argv[0] ?? "");
if (isMainThread && isProfiled && process.env.BENCH_CPU_PROF_DIR) {
  const fs = require("node:fs");
  const path = require("node:path");
  const inspector = require("node:inspector");
  const dir = process.env.BENCH_CPU_PROF_DIR;
  try {
    fs.writeFileSync(path.join(dir, `process.${process.pid}.json`), JSON.stringify({ pid: process.pid, argv, startedAt: Date.now() }));
    if (/\.worker\/worker\.mjs$/.test(argv[0])) fs.copyFileSync(argv[0], path.join(dir, `bundle.${process.pid}.mjs`));
  } catch {
    // the summary then falls back to the files as they are
  }
  const session = new inspector.Session();
  session.connect();
  let part = 0;
  const start = () => {
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: 1000 });
    session.post("Profiler.start");
  };
  const write = () => {
    // Same-thread inspector sessions answer synchronously, so this also works inside an 'exit' handler.
    session.post("Profiler.stop", (error, result) => {
      if (error) return;
      const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", ".").slice(0, 15);
      const file = path.join(dir, `CPU.${stamp}.${process.pid}.0.${part}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(result.profile));
      // The heap at the end of the part: tells a growing RSS that is garbage not yet collected from live data.
      fs.writeFileSync(path.join(dir, `memory.${process.pid}.${part++}.json`), JSON.stringify(process.memoryUsage()));
    });
  };
  start();
  process.on("SIGUSR2", () => {
    write();
    start();
  });
  process.once("exit", write);
}
