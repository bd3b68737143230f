"use client";

import Link from "next/link";
import { ApprovalStatusBadge } from "@/components/approvals/approval-card";
import { ApprovalSignatures } from "@/components/approvals/approval-signatures";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { useCallApproval } from "@/lib/client/approvals";

/**
 * The dual-sign record of a call that no longer waits (approved and run, denied, expired, void): its
 * status, who signed and when, who decided and why. Renders nothing for a call that had no approval.
 */
export function CallApprovalSummary({ callId }: { callId: string }) {
  const approval = useCallApproval(callId, false);
  if (!approval.data) return null;
  const { data } = approval;
  return (
    <Card aria-labelledby="call-approval-title" data-testid="call-approval">
      <CardHeader
        title="Approval"
        titleId="call-approval-title"
        actions={
          <>
            <ApprovalStatusBadge status={data.status} />
            <Link href={`/approvals?status=${data.status}`} className="text-xs font-medium text-blue-700 hover:underline">
              Approvals
            </Link>
          </>
        }
      />
      <CardBody className="space-y-2">
        <ApprovalSignatures approval={data} />
        {data.decidedBy || data.reason ? (
          <p className="text-sm text-zinc-700">
            {data.decidedBy ? <>Decided by {data.decidedBy}. </> : null}
            {data.reason ? <>Reason: {data.reason}</> : null}
          </p>
        ) : null}
      </CardBody>
    </Card>
  );
}
