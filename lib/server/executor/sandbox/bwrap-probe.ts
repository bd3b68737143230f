import { accessSync, chmodSync, closeSync, constants, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startProcess } from "../start-process";
import { openBindFd } from "./bind-fd";
import type { SandboxHost } from "./host-capabilities";
import { assembleSandboxedCommand } from "./sandbox-command";
import { DEFAULT_SANDBOX_DECLARATION } from "./sandbox-declaration";

/** Where bwrap is looked for: the fixed system PATH of DESIGN.md ("is bwrap on /usr/bin:/bin"). */
export const DEFAULT_BWRAP_CANDIDATES: readonly string[] = ["/usr/bin/bwrap", "/bin/bwrap"];

/** Longest a probe may take, in ms (a cold start of bwrap is a few ms). */
const PROBE_TIMEOUT_MS = 10_000;

/** The first of `candidates` (absolute paths) that is an executable regular file, or null. Never throws. */
export function findExecutable(candidates: readonly string[]): string | null {
  for (const candidate of candidates) {
    if (!path.isAbsolute(candidate)) continue;
    try {
      if (!statSync(realpathSync.native(candidate)).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Missing or not executable: try the next one.
    }
  }
  return null;
}

/**
 * Runs the smallest real sandbox `host` would give a call — the same flags, a snapshot bound from a
 * descriptor, `/usr/bin/id -u` as the command — and checks that it exits 0 printing host.uid
 * (DESIGN.md "Workers and the sandbox": SKILL_SANDBOX=auto uses bubblewrap when it works on the host).
 * Returns null when it works, else the reason (bwrap's own stderr when it says one). Never throws.
 */
export async function probeSandbox(host: SandboxHost): Promise<string | null> {
  const folder = realpathSync.native(mkdtempSync(path.join(tmpdir(), "sandbox-probe-")));
  let fd: number | null = null;
  try {
    chmodSync(folder, 0o755);
    fd = openBindFd(folder);
    const command = assembleSandboxedCommand(host, {
      command: "/usr/bin/id",
      args: ["-u"],
      cwd: "/probe",
      env: {},
      binds: [{ fd, target: "/probe" }],
      declaration: { ...DEFAULT_SANDBOX_DECLARATION, read: [], write: [], devices: [] },
      hiddenPaths: [],
      home: "/home/skill",
      // It declares nothing, so nothing is opened (openedFds is empty).
      allowedRoots: [],
    });
    const lines: string[] = [];
    const outcome = await startProcess(
      { ...command, cwd: "/", stdin: "", timeoutMs: PROBE_TIMEOUT_MS, killGraceMs: 200, exitDrainMs: 200, stdoutLimitBytes: 4096, stderrLimitBytes: 4096 },
      { onStderrLine: (line) => lines.push(line) },
    ).done;
    if (outcome.end === "exited" && outcome.exitCode === 0 && outcome.stdout.trim() === String(host.uid)) return null;
    const said = lines.join(" ").trim();
    if (said !== "") return said;
    if (outcome.error !== null) return outcome.error;
    if (outcome.end !== "exited") return `the probe ${outcome.end.replace("_", " ")}`;
    return `the probe exited with code ${outcome.exitCode ?? outcome.signal} printing ${JSON.stringify(outcome.stdout.trim())} instead of uid ${host.uid}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    if (fd !== null) closeSync(fd);
    rmSync(folder, { recursive: true, force: true });
  }
}
