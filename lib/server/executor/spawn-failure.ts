import { statSync } from "node:fs";

/**
 * A readable reason why `spec.command` could not be started (DESIGN.md "Subprocess skills": a call
 * that cannot start fails with a clear error). `failure` is the `error` a child that could not start
 * emitted (it carries the errno `code`) or an error node:child_process threw. Returns e.g.
 * `cannot start /s/run.sh: permission denied, is it executable? (EACCES)`. Never throws.
 */
export function describeSpawnFailure(failure: unknown, spec: { command: string; cwd: string }): string {
  const code = errnoCode(failure);
  const prefix = `cannot start ${spec.command}`;
  if ((code === "ENOENT" || code === "ENOTDIR") && !isDirectory(spec.cwd)) {
    return `${prefix}: working directory ${spec.cwd} does not exist or is not a directory (${code})`;
  }
  if (code === "ENOENT") return `${prefix}: no such file, or its #! interpreter is missing (ENOENT)`;
  if (code === "EACCES") return `${prefix}: permission denied, is it an executable file? (EACCES)`;
  return `${prefix}: ${originalMessage(failure)}`;
}

function errnoCode(failure: unknown): string | undefined {
  if (typeof failure !== "object" || failure === null) return undefined;
  if ("code" in failure && typeof failure.code === "string") return failure.code;
  return "cause" in failure ? errnoCode(failure.cause) : undefined;
}

function originalMessage(failure: unknown): string {
  if (typeof failure === "object" && failure !== null) {
    if ("originalMessage" in failure && typeof failure.originalMessage === "string") return failure.originalMessage;
    if ("message" in failure && typeof failure.message === "string") return failure.message;
  }
  return String(failure);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
