import type { ProcessOutcome } from "./process-types";
import type { SubprocessVerdict } from "./subprocess-outcome";

/**
 * Reads a process outcome the way seed 004's script executor does (`Run(...) (string, error)`; DESIGN.md
 * "Native skills": a script's stdout is returned as text): the result is `{"stdout": "<text>"}` whenever
 * the script ran to an exit, also a non-zero one (a health check that reports "unhealthy" on stdout
 * and exits 1 must still show what it found), and the call fails on a non-zero exit code or a signal.
 * Timeouts, cancels, stdout past the limit and spawn failures read as for subprocess skills, with no
 * result. `spec` gives the timeout (ms) and stdout limit (bytes) for the messages. Pure; never throws.
 */
export function interpretScriptOutcome(outcome: ProcessOutcome, spec: { timeoutMs: number; stdoutLimitBytes: number }): SubprocessVerdict {
  switch (outcome.end) {
    case "spawn_failed":
      return { status: "failed", result: null, exitCode: null, error: outcome.error ?? "could not start the process" };
    case "timed_out":
      return { status: "timed_out", result: { stdout: outcome.stdout }, exitCode: outcome.exitCode, error: `timed out after ${spec.timeoutMs} ms` };
    case "cancelled":
      return { status: "cancelled", result: { stdout: outcome.stdout }, exitCode: outcome.exitCode, error: "cancelled" };
    case "stdout_overflow":
      return { status: "failed", result: null, exitCode: outcome.exitCode, error: `stdout exceeded ${spec.stdoutLimitBytes} bytes` };
    case "exited":
      break;
  }
  const result = { stdout: outcome.stdout };
  if (outcome.signal !== null) return { status: "failed", result, exitCode: null, error: `killed by signal ${outcome.signal}` };
  if (outcome.exitCode !== 0) return { status: "failed", result, exitCode: outcome.exitCode, error: `exited with code ${outcome.exitCode ?? "unknown"}` };
  return { status: "succeeded", result, exitCode: 0, error: null };
}
