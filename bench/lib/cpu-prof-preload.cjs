/**
 * CPU-profiling preload for `bench/run.mjs --cpu-prof` (Node 20 refuses --cpu-prof in NODE_OPTIONS, but
 * accepts --require): in the main thread of the console's server process only (scripts/console-server.mjs), starts the V8 sampling
 * profiler through node:inspector and, when the process exits, writes
 * $BENCH_CPU_PROF_DIR/CPU.<date>.<pid>.0.0.cpuprofile (the --cpu-prof naming, pid in the 4th field).
 * SIGUSR2 writes the profile so far and starts a new one, so a run can be cut into phases.
 */
"use strict";
const { isMainThread } = require("node:worker_threads");
const argv = process.argv.slice(1);
const isConsoleServer = /console-server\.mjs$/.test(argv[0] ?? "");
if (isMainThread && isConsoleServer && process.env.BENCH_CPU_PROF_DIR) {
  const fs = require("node:fs");
  const path = require("node:path");
  const inspector = require("node:inspector");
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
      const file = path.join(process.env.BENCH_CPU_PROF_DIR, `CPU.${stamp}.${process.pid}.0.${part++}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(result.profile));
    });
  };
  start();
  process.on("SIGUSR2", () => {
    write();
    start();
  });
  process.once("exit", write);
}
