import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { E2E_ADMIN, E2E_AUTH_SECRET } from "./support/e2e-admin";

/**
 * No console secret travels in a long-lived environment (issue 9 point 2): `npm start` is given
 * CONSOLE_ADMIN_PASSWORD, CONSOLE_AUTH_SECRET and a DATABASE_URL (or DATABASE_URL_FILE) by this suite, yet the console server it starts holds
 * neither in /proc/<pid>/environ (they come over a pipe), and its local worker holds no database URL,
 * no console secret and not its own worker token (which comes on its stdin). Read from the host, as a
 * process of the same user could.
 */

interface HostProcess {
  pid: number;
  ppid: number;
  cmdline: string;
  environ: string;
}

function hostProcesses(): HostProcess[] {
  const found: HostProcess[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      const environ = fs.readFileSync(`/proc/${name}/environ`, "utf8");
      const ppid = Number(/^PPid:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${name}/status`, "utf8"))?.[1] ?? 0);
      found.push({ pid: Number(name), ppid, cmdline, environ });
    } catch {
      // Gone meanwhile, or not readable.
    }
  }
  return found;
}

test("the console server and its local worker hold no secret in their environment", async ({ baseURL }) => {
  // This project's console (SQLite's or PostgreSQL's: playwright.config.ts).
  const port = new URL(baseURL!).port;
  const processes = hostProcesses();
  const server = processes.find((entry) => entry.cmdline.includes("scripts/console-server.mjs") && entry.environ.split("\0").includes(`PORT=${port}`));
  expect(server, "the console server of this run").toBeDefined();
  for (const secret of [E2E_ADMIN.password, E2E_AUTH_SECRET]) expect(server!.environ).not.toContain(secret);
  // DATABASE_URL too: a postgresql:// one holds the database password (handed over the pipe as well).
  expect(server!.environ).not.toMatch(/(^|\0)(CONSOLE_ADMIN_PASSWORD|CONSOLE_AUTH_SECRET|DATABASE_URL|DATABASE_URL_FILE)=/);

  const worker = processes.find((entry) => entry.ppid === server!.pid && entry.cmdline.includes(".worker/worker.mjs"));
  expect(worker, "the local worker started by that server").toBeDefined();
  expect(worker!.environ).not.toMatch(/(^|\0)(DATABASE_URL|CONSOLE_ADMIN_PASSWORD|CONSOLE_AUTH_SECRET|WORKER_TOKEN)=/);
  expect(worker!.environ).not.toContain("skw_");
  for (const secret of [E2E_ADMIN.password, E2E_AUTH_SECRET]) expect(worker!.environ).not.toContain(secret);
});
