import { describe, expect, it } from "vitest";
import type { ProcessOutcome } from "./process-types";
import { interpretSubprocessOutcome, type SubprocessVerdict } from "./subprocess-outcome";

const spec = { timeoutMs: 2000, stdoutLimitBytes: 4194304 };

function outcome(fields: Partial<ProcessOutcome>): ProcessOutcome {
  return { end: "exited", exitCode: 0, signal: null, stdout: "", durationMs: 12, error: null, ...fields };
}

const failed = (error: string, exitCode: number | null = 0): SubprocessVerdict => ({ status: "failed", result: null, exitCode, error });

describe("interpretSubprocessOutcome", () => {
  it.each<{ name: string; given: Partial<ProcessOutcome>; verdict: SubprocessVerdict }>([
    {
      name: "one JSON object",
      given: { stdout: '{"freed_bytes":1048576,"files_deleted":17}' },
      verdict: { status: "succeeded", result: { freed_bytes: 1048576, files_deleted: 17 }, exitCode: 0, error: null },
    },
    {
      name: "one JSON object with whitespace around it",
      given: { stdout: '\n  {"ok": true, "nested": {"a": [1]}}\r\n\n' },
      verdict: { status: "succeeded", result: { ok: true, nested: { a: [1] } }, exitCode: 0, error: null },
    },
    { name: "empty stdout", given: { stdout: "" }, verdict: failed("stdout is empty; expected one JSON object") },
    { name: "whitespace only", given: { stdout: " \n\t" }, verdict: failed("stdout is empty; expected one JSON object") },
    {
      name: "plain text",
      given: { stdout: "hello world\n" },
      verdict: failed(`stdout is not a JSON object: Unexpected token 'h', "hello world" is not valid JSON (stdout: "hello world")`),
    },
    {
      name: "two objects",
      given: { stdout: '{"a":1}\n{"b":2}\n' },
      verdict: failed(`stdout is not a JSON object: Unexpected non-whitespace character after JSON at position 8 (stdout: "{\\"a\\":1}\\n{\\"b\\":2}")`),
    },
    { name: "an array", given: { stdout: "[1,2]" }, verdict: failed('stdout is not a JSON object: got an array (stdout: "[1,2]")') },
    { name: "a number", given: { stdout: "42\n" }, verdict: failed('stdout is not a JSON object: got a number (stdout: "42")') },
    { name: "a string", given: { stdout: '"ok"' }, verdict: failed('stdout is not a JSON object: got a string (stdout: "\\"ok\\"")') },
    { name: "null", given: { stdout: "null" }, verdict: failed('stdout is not a JSON object: got null (stdout: "null")') },
    { name: "a boolean", given: { stdout: "true" }, verdict: failed('stdout is not a JSON object: got a boolean (stdout: "true")') },
    {
      name: "control characters escaped and a long stdout cut",
      given: { stdout: `\u0007${"x".repeat(100)}` },
      verdict: failed(
        `stdout is not a JSON object: Unexpected token '\\u0007', "\\u0007xxxxxxxxx"... is not valid JSON (stdout: "\\u0007${"x".repeat(79)}…")`,
      ),
    },
    { name: "non-zero exit", given: { exitCode: 3, stdout: '{"ok":true}' }, verdict: failed("exited with code 3", 3) },
    { name: "killed by a signal", given: { exitCode: null, signal: "SIGSEGV" }, verdict: failed("killed by signal SIGSEGV", null) },
    {
      name: "timed out",
      given: { end: "timed_out", exitCode: null, signal: "SIGKILL" },
      verdict: { status: "timed_out", result: null, exitCode: null, error: "timed out after 2000 ms" },
    },
    {
      name: "cancelled",
      given: { end: "cancelled", exitCode: null, signal: "SIGTERM" },
      verdict: { status: "cancelled", result: null, exitCode: null, error: "cancelled" },
    },
    {
      name: "stdout overflow",
      given: { end: "stdout_overflow", exitCode: null, signal: "SIGTERM", stdout: "y\n".repeat(10) },
      verdict: failed("stdout exceeded 4194304 bytes", null),
    },
    {
      name: "spawn failure",
      given: { end: "spawn_failed", exitCode: null, error: "cannot start /s/run: no such file, or its #! interpreter is missing (ENOENT)" },
      verdict: failed("cannot start /s/run: no such file, or its #! interpreter is missing (ENOENT)", null),
    },
  ])("$name", ({ given, verdict }) => {
    expect(interpretSubprocessOutcome(outcome(given), spec)).toEqual(verdict);
  });
});
