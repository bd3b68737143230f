import { constants, openSync } from "node:fs";

/** O_PATH on Linux (x86, arm, riscv): Node does not export it. The fd names a file or folder without opening its contents. */
const O_PATH = 0o10000000;

/**
 * Opens `target` (the snapshot's folder, or a lone entry file) as an O_PATH descriptor for a sandbox
 * bind (`SandboxRequest.binds`, bwrap `--ro-bind-fd`): binding the descriptor instead of the path
 * means a rename or symlink swap of the path after the worker checked it cannot change what the
 * sandbox sees (DESIGN.md "Workers and the sandbox": the skill's own folder read-only, as verified
 * just before spawn). The descriptor is close-on-exec (Node adds it); the caller closes it once the
 * process has started. Throws the errno error (ENOENT; ELOOP when `target` itself is a symlink).
 */
export function openBindFd(target: string): number {
  return openSync(target, O_PATH | constants.O_NOFOLLOW);
}
