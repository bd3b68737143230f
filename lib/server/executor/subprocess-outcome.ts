import { exceedsJsonDepth, MAX_JSON_DEPTH } from "@/lib/validation/json-depth";
import type { ProcessOutcome } from "./process-types";

/** Longest piece of a child's stdout quoted in an error message, in characters. */
const EXCERPT_CHARS = 80;

/** What a subprocess skill's run means for its call (status, result and error of DESIGN.md "Call"). */
export interface SubprocessVerdict {
  status: "succeeded" | "failed" | "timed_out" | "cancelled";
  result: Record<string, unknown> | null;
  exitCode: number | null;
  error: string | null;
}

/**
 * Reads a process outcome with the subprocess-skill wire protocol (seed 000 "Protocolo wire", DESIGN.md
 * "Subprocess skills": stdout = one JSON object, non-zero exit = failure). `spec` gives the timeout
 * (ms) and stdout limit (bytes) used, for the messages. Pure; never throws.
 *
 * - exited 0 with stdout exactly one JSON object (whitespace around it allowed) → succeeded with it;
 *   any other stdout → failed, e.g. `stdout is not a JSON object: got an array (stdout: "[1]")`; an
 *   object nested deeper than MAX_JSON_DEPTH → failed `stdout JSON nests deeper than 128 levels` (the
 *   console could not serialise it back, and every listing holding it would fail)
 * - exit code ≠ 0 → failed `exited with code 3`; killed by a signal → failed `killed by signal SIGSEGV`
 * - timed_out → timed_out `timed out after 2000 ms`; cancelled → cancelled `cancelled`
 * - stdout_overflow → failed `stdout exceeded 4194304 bytes`; spawn_failed → failed with its error
 */
export function interpretSubprocessOutcome(
  outcome: ProcessOutcome,
  spec: { timeoutMs: number; stdoutLimitBytes: number },
): SubprocessVerdict {
  const failed = (error: string): SubprocessVerdict => ({ status: "failed", result: null, exitCode: outcome.exitCode, error });
  switch (outcome.end) {
    case "spawn_failed":
      return failed(outcome.error ?? "could not start the process");
    case "timed_out":
      return { status: "timed_out", result: null, exitCode: outcome.exitCode, error: `timed out after ${spec.timeoutMs} ms` };
    case "cancelled":
      return { status: "cancelled", result: null, exitCode: outcome.exitCode, error: "cancelled" };
    case "stdout_overflow":
      return failed(`stdout exceeded ${spec.stdoutLimitBytes} bytes`);
    case "exited":
      break;
  }
  if (outcome.signal !== null) return failed(`killed by signal ${outcome.signal}`);
  if (outcome.exitCode !== 0) return failed(`exited with code ${outcome.exitCode ?? "unknown"}`);
  const parsed = parseResultObject(outcome.stdout);
  if (typeof parsed === "string") return failed(parsed);
  return { status: "succeeded", result: parsed, exitCode: 0, error: null };
}

/** The one JSON object of `stdout`, or the reason it is not one. */
function parseResultObject(stdout: string): Record<string, unknown> | string {
  const text = stdout.trim();
  if (text === "") return "stdout is empty; expected one JSON object";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `stdout is not a JSON object: ${escapeControls(error instanceof Error ? error.message : String(error))} (stdout: ${excerpt(text)})`;
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    if (exceedsJsonDepth(value, MAX_JSON_DEPTH)) return `stdout JSON nests deeper than ${MAX_JSON_DEPTH} levels`;
    return value as Record<string, unknown>;
  }
  return `stdout is not a JSON object: got ${kindOf(value)} (stdout: ${excerpt(text)})`;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** A short quoted start of `text`, with control and direction-changing characters escaped. */
function excerpt(text: string): string {
  const chars = Array.from(text);
  const head = chars.slice(0, EXCERPT_CHARS).join("");
  return `"${escapeControls(head.replace(/\\/g, "\\\\").replace(/"/g, '\\"'))}${chars.length > EXCERPT_CHARS ? "…" : ""}"`;
}

const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeControls(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
