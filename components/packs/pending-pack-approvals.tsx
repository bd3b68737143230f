"use client";

import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { useIdentity } from "@/lib/client/identity";
import { usePacks } from "@/lib/client/use-packs";

/**
 * For admins on the Approvals page: the pack versions whose enabling waits for a second admin
 * (DESIGN.md "Skill packs"), with a link to the Packs page where they are signed; nothing when none
 * waits or for anyone else.
 */
export function PendingPackApprovals() {
  const identity = useIdentity();
  const isAdmin = identity.data?.role === "admin";
  const packs = usePacks(isAdmin);
  const waiting = (packs.data ?? []).filter((pack) => pack.status === "awaiting_approval");
  if (!isAdmin || waiting.length === 0) return null;
  const mine = waiting.filter((pack) => pack.approvalRequestedBy === identity.data?.email).length;
  return (
    <Alert tone="warning" title={`${waiting.length} pack${waiting.length === 1 ? "" : "s"} wait${waiting.length === 1 ? "s" : ""} for a second admin`} className="mb-4" data-testid="pending-pack-approvals">
      {waiting.map((pack) => `${pack.name} ${pack.version}`).join(", ")}: each adds or changes a dangerous skill.{" "}
      {mine === waiting.length ? "You asked for them: another admin signs them " : "Sign or deny them "}
      on the{" "}
      <Link href="/packs" className="font-medium text-blue-700 hover:underline">
        Packs page
      </Link>
      .
    </Alert>
  );
}
