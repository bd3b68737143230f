import { DateTime } from "@/components/ui/date-time";
import type { Approval } from "@/lib/types/approval";

/**
 * The signatures an approval has so far: "n of 2 signatures", then who signed and when (signatures of
 * people who are no longer approvers are not counted and not listed by the server).
 */
export function ApprovalSignatures({ approval }: { approval: Approval }) {
  const count = approval.signatures.length;
  return (
    <div data-testid="approval-signatures" data-count={count}>
      <p className="text-sm font-medium text-zinc-900">
        {count} of {approval.required} signatures
      </p>
      {count > 0 ? (
        <ul className="mt-1 space-y-0.5 text-xs text-zinc-600">
          {approval.signatures.map((signature) => (
            <li key={signature.by}>
              <span className="font-medium text-zinc-800">{signature.by}</span> signed at <DateTime iso={signature.at} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-1 text-xs text-zinc-500">{approval.status === "pending" ? "No one has signed yet." : "No one signed."}</p>
      )}
    </div>
  );
}
