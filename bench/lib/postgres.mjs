/**
 * The benchmark's view of its PostgreSQL cluster (scripts/postgres-cluster.mjs): the server's processes
 * (the postmaster and every backend and helper it forked), their CPU, and pinning them to CPUs with
 * taskset for the scaling phase (issue 11 point 5: "PostgreSQL's own CPU per call").
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { readCpu } from "./server.mjs";

/** Parent pid of every live process, from /proc. */
function parentsByPid() {
  const parents = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  return parents;
}

/** The postmaster of `cluster` and its direct children (backends, checkpointer, WAL writer…), pids; [] when it is down. */
export function postgresPids(cluster) {
  const postmaster = cluster.serverPid();
  if (!postmaster) return [];
  const children = [...parentsByPid()].filter(([, parent]) => parent === postmaster).map(([pid]) => pid);
  return [postmaster, ...children];
}

/**
 * CPU used so far by `cluster`'s server, in ms: the live processes' own (utime + stime) plus what the
 * postmaster's exited children used (cutime + cstime). A backend that ends between two readings moves
 * from the first sum into the second, so differences of readings stay right.
 */
export function postgresCpuMs(cluster) {
  const pids = postgresPids(cluster);
  if (pids.length === 0) return NaN;
  let total = readCpu(pids[0]).childrenMs;
  for (const pid of pids) {
    const cpu = readCpu(pid);
    if (Number.isFinite(cpu.selfMs)) total += cpu.selfMs;
  }
  return total;
}

/**
 * Pins every thread of `cluster`'s server processes to `cpus` (a taskset list such as "0" or "0-1");
 * backends forked later inherit the postmaster's affinity. Throws when taskset fails.
 */
export function pinPostgres(cluster, cpus) {
  for (const pid of postgresPids(cluster)) {
    try {
      execFileSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
    } catch (error) {
      // A backend that ended meanwhile is fine; anything else is not.
      if (fs.existsSync(`/proc/${pid}`)) throw error;
    }
  }
}
