import fs from "node:fs";

/** Every process on the host whose command line contains `text` (read from /proc; what exits meanwhile is skipped). */
export function processesWith(text: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}
