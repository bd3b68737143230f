import type { Approval } from "@/lib/types/approval";
import { roleAtLeast, type Identity } from "@/lib/types/identity";
import { formatDateTime } from "@/lib/client/format-time";

/**
 * Why the signed-in person may not Sign or Deny `approval` — the reason shown next to the disabled
 * buttons (issue 4 point 6) — or null when they may. In order: not pending any more; identity unknown
 * yet; an API token; below the approver role; the requester ("you requested this call"); already
 * signed ("you signed at …", local time). Mirrors the server's rules for display only: the server's
 * 403/409 answer is what counts.
 */
export function approvalActionBlock(approval: Approval, identity: Identity | undefined): string | null {
  if (approval.status !== "pending") return `this approval is ${approval.status}`;
  if (!identity) return "checking who you are…";
  if (identity.via !== "session") return "a person must sign or deny; API tokens cannot";
  if (!roleAtLeast(identity.role, "approver")) return `only approvers may sign or deny; you are ${identity.role === "operator" ? "an" : "a"} ${identity.role}`;
  if (approval.requestedBy === identity.email) return "you requested this call";
  const mine = approval.signatures.find((signature) => signature.by === identity.email);
  if (mine) return `you signed at ${formatDateTime(mine.at)}`;
  return null;
}
