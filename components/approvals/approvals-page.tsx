"use client";

import { useEffect, useRef } from "react";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { PageHeader } from "@/components/layout/page-header";
import { PendingPackApprovals } from "@/components/packs/pending-pack-approvals";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { APPROVALS_POLL_MS, useApprovals, useLastDenial } from "@/lib/client/approvals";
import { useIdentity } from "@/lib/client/identity";
import { APPROVAL_STATUSES, type ApprovalStatus } from "@/lib/types/approval";
import { ApprovalCard } from "./approval-card";
import { ConfirmationQueue } from "./confirmation-queue";

type Tab = ApprovalStatus | "all";

const TABS: readonly Tab[] = [...APPROVAL_STATUSES, "all"];

const TAB_LABEL: Record<Tab, string> = { pending: "Pending", approved: "Approved", denied: "Denied", expired: "Expired", void: "Void", all: "All" };

const EMPTY: Record<Tab, string> = {
  pending: "Nothing waits for signatures. Dangerous calls requested under a dual-sign-required persona show up here.",
  approved: "No approval has collected its two signatures yet.",
  denied: "No approval has been denied.",
  expired: "No approval has expired.",
  void: "No approval has been voided by a change to the skill or its args.",
  all: "No dangerous call has been requested yet.",
};

function readTab(value: string | null): Tab {
  return value !== null && (TABS as readonly string[]).includes(value) ? (value as Tab) : "pending";
}

/** Placeholder of the approvals queue while it loads. */
export function ApprovalsSkeleton() {
  return (
    <div className="space-y-4">
      {[0, 1].map((key) => (
        <Card key={key}>
          <SkeletonRows rows={5} className="p-4" />
        </Card>
      ))}
    </div>
  );
}

/** The status tabs, kept in the URL (`?status=`), the current one marked. */
function StatusTabs({ current }: { current: Tab }) {
  return (
    <nav aria-label="Approval status" className="mb-4 flex flex-wrap gap-1 border-b border-zinc-200">
      {TABS.map((tab) => (
        <Link
          key={tab}
          href={tab === "pending" ? "/approvals" : `/approvals?status=${tab}`}
          aria-current={tab === current ? "page" : undefined}
          className={cx(
            "-mb-px border-b-2 px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-blue-600",
            tab === current ? "border-zinc-900 text-zinc-900" : "border-transparent text-zinc-500 hover:text-zinc-800",
          )}
        >
          {TAB_LABEL[tab]}
        </Link>
      ))}
    </nav>
  );
}

/**
 * Once the approvals are shown, scrolls to the one the address names (`#approval-<id>`: the link a
 * webhook's approval request carries) — the browser looked for it before the list had loaded — and
 * moves focus to it, once per address.
 */
function useScrollToLinkedApproval(loaded: boolean) {
  const done = useRef<string | null>(null);
  useEffect(() => {
    const hash = window.location.hash;
    if (!loaded || !hash.startsWith("#approval-") || done.current === hash) return;
    const card = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (!card) return;
    done.current = hash;
    card.scrollIntoView({ block: "start" });
    card.setAttribute("tabindex", "-1");
    card.focus({ preventScroll: true });
  }, [loaded]);
}

/**
 * The Approvals page body (issue 4 points 4 and 6): on the pending tab first the mutating calls awaiting
 * one confirmation (ConfirmationQueue), then the queue of dual-sign requests of one status (pending by
 * default; tabs for approved, denied, expired, void and all, in `?status=`), newest first, each as an
 * ApprovalCard with Sign and Deny. Re-read every APPROVALS_POLL_MS so another approver's signature or
 * denial — on any console process — shows within seconds. Loading, error and empty states.
 */
export function ApprovalsPage() {
  const tab = readTab(useSearchParams().get("status"));
  const approvals = useApprovals(tab);
  const identity = useIdentity();
  const denied = useLastDenial();
  useScrollToLinkedApproval(approvals.isSuccess);

  return (
    <>
      <PageHeader
        title="Approvals"
        description={
          <>
            Dangerous calls wait here for two approvers, neither of them the requester. Check the exact args and the digest before signing; the
            list refreshes every {APPROVALS_POLL_MS / 1000} s.
          </>
        }
      />
      {denied ? (
        <Alert tone="info" title={`Denied ${denied.call.skill}`} live className="mb-4" data-testid="approval-denied-notice">
          The call ends denied and never runs. It is listed under{" "}
          <Link href="/approvals?status=denied" className="font-medium text-blue-700 hover:underline">
            Denied
          </Link>
          .
        </Alert>
      ) : null}
      {tab === "pending" ? <PendingPackApprovals /> : null}
      {tab === "pending" ? <ConfirmationQueue /> : null}
      <StatusTabs current={tab} />
      {approvals.isPending ? (
        <ApprovalsSkeleton />
      ) : approvals.isError ? (
        <LoadFailed title="Could not load the approvals" error={approvals.error} onRetry={() => void approvals.refetch()} />
      ) : approvals.data.length === 0 ? (
        <EmptyState title={tab === "pending" ? "No pending approvals" : `No ${TAB_LABEL[tab].toLowerCase()} approvals`}>{EMPTY[tab]}</EmptyState>
      ) : (
        <ul className="space-y-4" aria-label={`${TAB_LABEL[tab]} approvals`}>
          {approvals.data.map((approval) => (
            <li key={approval.id}>
              <ApprovalCard approval={approval} identity={identity.data} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
