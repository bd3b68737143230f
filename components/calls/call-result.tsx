import { Alert } from "@/components/ui/alert";
import { Card, CardHeader } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import { formatDuration } from "@/lib/client/format-time";
import type { Call } from "@/lib/types/call";
import { ExitCode } from "./exit-code";

const FAILURE_TITLE: Partial<Record<Call["status"], string>> = {
  failed: "The call failed",
  timed_out: "The call timed out",
  cancelled: "The call was cancelled",
  interrupted: "The call was interrupted",
  denied: "The call was denied",
  expired: "The call expired",
};

/**
 * The outcome of a finished call: exit code, duration, the error for a failure, and the result object
 * as pretty JSON (absent when the skill wrote none).
 */
export function CallResult({ call }: { call: Call }) {
  const failureTitle = FAILURE_TITLE[call.status];
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
              <dd className="font-mono text-zinc-800 tabular-nums" data-testid="result-duration">
                {formatDuration(call.durationMs)}
              </dd>
            </div>
          </dl>
        }
      />
      <div className="space-y-3 p-4">
        {failureTitle ? (
          <Alert tone={call.status === "cancelled" ? "warning" : "danger"} title={failureTitle}>
            {call.error ?? "No error message was recorded."}
          </Alert>
        ) : null}
        {call.result !== null ? (
          <CodeBlock text={JSON.stringify(call.result, null, 2)} label="Result JSON" className="max-h-96" data-testid="result-json" />
        ) : (
          <p className="text-sm text-zinc-500">No result object.</p>
        )}
        {call.stderrTruncated ? (
          <p className="text-xs text-amber-700">The stderr timeline was truncated at the configured limit.</p>
        ) : null}
      </div>
    </Card>
  );
}
