import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { CallStatus } from "@/lib/types/call";

const TONE: Record<CallStatus, BadgeTone> = {
  queued: "neutral",
  running: "blue",
  succeeded: "green",
  failed: "red",
  timed_out: "red",
  cancelled: "neutral",
  awaiting_confirmation: "violet",
  awaiting_approval: "violet",
  denied: "red",
  expired: "neutral",
  interrupted: "amber",
};

/** A call's status as a badge; `running` pulses. The label is the status with spaces (`timed out`). */
export function CallStatusBadge({ status }: { status: CallStatus }) {
  return (
    <Badge tone={TONE[status]} dot pulse={status === "running"} data-status={status}>
      {status.replace(/_/g, " ")}
    </Badge>
  );
}
