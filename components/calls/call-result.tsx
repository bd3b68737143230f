import { Alert } from "@/components/ui/alert";
import { Card, CardHeader } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import type { Call, CallEvent } from "@/lib/types/call";
import { Duration } from "./duration";
import { ExitCode } from "./exit-code";
import { FailureExcerpt } from "./failure-excerpt";

const FAILURE_TITLE: Partial<Record<Call["status"], string>> = {
  failed: "The call failed",
  timed_out: "The call timed out",
  cancelled: "The call was cancelled",
  interrupted: "The call was interrupted",
  denied: "The call was denied",
  expired: "The call expired",
};

/**
 * The stdout text of a native skill's script run, whose result is exactly `{"stdout": "<text>"}`
 * (DESIGN.md "Native skills": stdout is returned as text); null for any other result.
 */
function scriptStdout(result: Call["result"]): string | null {
  if (result === null) return null;
  const keys = Object.keys(result);
  return keys.length === 1 && keys[0] === "stdout" && typeof result.stdout === "string" ? result.stdout : null;
}

/**
 * The outcome of a finished call, full width: exit code and duration in the header; for a failure,
 * a box with the error and `excerpt` (the timeline lines that explain it, see failureExcerpt); then
 * the result object as pretty JSON (absent when the skill wrote none), or a script's stdout as the
 * text it is.
 */
export function CallResult({ call, excerpt }: { call: Call; excerpt: readonly CallEvent[] }) {
  const failureTitle = FAILURE_TITLE[call.status];
  const stdout = scriptStdout(call.result);
  return (
    <Card aria-labelledby="call-result-title" data-testid="call-result">
      <CardHeader
        title="Result"
        titleId="call-result-title"
        actions={
          <dl className="flex items-center gap-4 text-xs text-zinc-500">
            <div className="flex items-center gap-1.5">
              <dt>exit</dt>
              <dd data-testid="result-exit-code">
                <ExitCode code={call.exitCode} />
              </dd>
            </div>
            <div className="flex items-center gap-1.5">
              <dt>took</dt>
              <dd className="text-zinc-800" data-testid="result-duration">
                <Duration ms={call.durationMs} emptyLabel="never ran" />
              </dd>
            </div>
          </dl>
        }
      />
      <div className="space-y-3 p-4">
        {failureTitle ? (
          <Alert tone={call.status === "cancelled" ? "warning" : "danger"} title={failureTitle} data-testid="call-failure">
            <p>{call.error ?? "No error message was recorded."}</p>
            <FailureExcerpt events={excerpt} status={call.status} />
          </Alert>
        ) : null}
        {stdout !== null ? (
          stdout === "" ? (
            <p className="text-xs text-zinc-500" data-testid="result-stdout-empty">
              The script wrote nothing to stdout.
            </p>
          ) : (
            <CodeBlock text={stdout} label="Script stdout" className="max-h-[32rem] whitespace-pre-wrap" data-testid="result-stdout" />
          )
        ) : call.result !== null ? (
          <CodeBlock text={JSON.stringify(call.result, null, 2)} label="Result JSON" className="max-h-[32rem]" data-testid="result-json" />
        ) : (
          <p className="text-xs text-zinc-500">
            {!call.startedAt ? "No result: the skill never ran." : failureTitle ? "No result object: the skill did not finish with one." : "The skill returned no result object."}
          </p>
        )}
        {call.stderrTruncated ? <p className="text-xs text-amber-700">The stderr timeline was truncated at the configured limit.</p> : null}
      </div>
    </Card>
  );
}
