"use client";

import { useMutation, useMutationState, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { Approval, ApprovalStatus } from "@/lib/types/approval";
import type { Call } from "@/lib/types/call";
import { fetchJson, withQuery } from "./fetch-json";
import { queryKeys } from "./query-keys";

/**
 * How often the approvals queue is re-read while the approvals feed (useApprovalFeed) is not
 * connected: the pages still follow what other approvers do, on any replica.
 */
export const APPROVALS_POLL_MS = 2000;

/** How often the navigation's pending count is re-read while the feed is not connected. */
export const APPROVALS_BADGE_POLL_MS = 5000;

/**
 * How often the approvals queries are re-read while the feed is connected: a safety net only (the feed
 * tells of every change on every replica within milliseconds).
 */
export const APPROVALS_FEED_POLL_MS = 30_000;

/** Whether this tab's approvals feed is open now (set by useApprovalFeed; read by the polls). */
let feedOpen = false;

/** The poll interval of an approvals query: `whenClosed` ms without the feed, APPROVALS_FEED_POLL_MS with it. */
function pollInterval(whenClosed: number): number {
  return feedOpen ? APPROVALS_FEED_POLL_MS : whenClosed;
}

/**
 * Follows `GET /api/v1/approvals/events` for this tab (mount it once, in the signed-in shell): on each
 * `change` every approvals query and every calls query it concerns are read again, so the badge and
 * the approvals pages update live whichever replica the change landed on (issue 11 point 2); while it is
 * open the polls slow to APPROVALS_FEED_POLL_MS, and when it fails they go back to their own pace. The
 * browser's EventSource reconnects by itself (the server sends `retry: 2000`); each reconnect (not the
 * first opening, which follows the page's own reads) reads everything again, for what changed
 * meanwhile. A call's own query is read again only while it waits for a person
 * (approvalChangeConcerns). Returns whether the feed is open now.
 */
export function useApprovalFeed(enabled: boolean): "open" | "closed" {
  const queryClient = useQueryClient();
  const [state, setState] = useState<"open" | "closed">("closed");
  useEffect(() => {
    if (!enabled || typeof EventSource === "undefined") return;
    const source = new EventSource("/api/v1/approvals/events");
    const refresh = () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.approvals.all });
      // The calls too: the confirmation queue, and a call page whose call just got its second signature.
      void queryClient.invalidateQueries({ queryKey: queryKeys.calls.all, predicate: (query) => approvalChangeConcerns(query.queryKey, query.state.data) });
    };
    // The first `ready` follows the page's own reads: only a reconnect may have missed a change.
    let openedBefore = false;
    source.addEventListener("ready", () => {
      feedOpen = true;
      setState("open");
      if (openedBefore) refresh();
      openedBefore = true;
    });
    source.addEventListener("change", refresh);
    source.addEventListener("error", () => {
      feedOpen = false;
      setState("closed");
    });
    return () => {
      feedOpen = false;
      setState("closed");
      source.close();
    };
  }, [enabled, queryClient]);
  return state;
}

/**
 * The approvals of one status, or of every status for `"all"` (`GET /api/v1/approvals?status=…` →
 * `{approvals}`, newest first), re-read every `pollMs` (default APPROVALS_POLL_MS) so the page follows
 * what other approvers do.
 */
export function useApprovals(status: ApprovalStatus | "all", pollMs: number | false = APPROVALS_POLL_MS) {
  return useQuery({
    queryKey: queryKeys.approvals.list(status),
    queryFn: ({ signal }) =>
      fetchJson<{ approvals: Approval[] }>(withQuery("/api/v1/approvals", { status: status === "all" ? undefined : status }), { signal }).then(
        (body) => body.approvals,
      ),
    refetchInterval: pollMs === false ? false : () => pollInterval(pollMs),
  });
}

/**
 * The number of pending approvals for the navigation badge, re-read every APPROVALS_BADGE_POLL_MS.
 * It has its own query key: sharing the Approvals page's would let the badge (hydrated first, outside
 * the page's Suspense boundary) fill the page's cache before the page hydrates, so the page's first
 * render would differ from the server's HTML (React hydration error #418).
 */
export function usePendingApprovalCount() {
  const pending = useQuery({
    queryKey: queryKeys.approvals.badge(),
    queryFn: ({ signal }) => fetchJson<{ approvals: Approval[] }>("/api/v1/approvals?status=pending", { signal }).then((body) => body.approvals.length),
    refetchInterval: () => pollInterval(APPROVALS_BADGE_POLL_MS),
  });
  return pending.data;
}

/**
 * The approval guarding call `callId`, found in the list of every approval (the newest 100); re-read
 * every APPROVALS_POLL_MS while `live` or while it is pending. `data` is undefined while loading and
 * null when the call has none.
 */
export function useCallApproval(callId: string, live: boolean) {
  return useQuery({
    queryKey: [...queryKeys.approvals.list("all"), "call", callId] as const,
    queryFn: ({ signal }) =>
      fetchJson<{ approvals: Approval[] }>("/api/v1/approvals", { signal }).then(
        (body) => body.approvals.find((approval) => approval.callId === callId) ?? null,
      ),
    // A cached answer may predate the last signature: keep re-reading while the approval is pending.
    refetchInterval: (query) => (live || query.state.data?.status === "pending" ? pollInterval(APPROVALS_POLL_MS) : false),
  });
}

/**
 * Mutating calls waiting for a person's confirmation (`GET /api/v1/calls?status=awaiting_confirmation`,
 * newest 100), re-read every APPROVALS_POLL_MS even while none waits, so an agent's new call shows up.
 */
export function useCallsAwaitingConfirmation() {
  const filters = { status: "awaiting_confirmation", limit: 100 } as const;
  return useQuery({
    queryKey: queryKeys.calls.list(filters),
    queryFn: ({ signal }) => fetchJson<{ calls: Call[] }>(withQuery("/api/v1/calls", filters), { signal }).then((body) => body.calls),
    refetchInterval: () => pollInterval(APPROVALS_POLL_MS),
  });
}

function useApprovalsInvalidation() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.approvals.all });
    void queryClient.invalidateQueries({ queryKey: queryKeys.calls.all, predicate: (query) => approvalChangeConcerns(query.queryKey, query.state.data) });
  };
}

/**
 * Whether a change of approvals may have changed what a calls query holds: every list (the
 * confirmation queue, the history), and one call only while it waits for a person (or is not read
 * yet). A running or finished call's query is left alone: reading it again downloads its whole stored
 * timeline (200,000 lines for a chatty call), once per approval changed anywhere. Pure.
 */
export function approvalChangeConcerns(queryKey: readonly unknown[], data: unknown): boolean {
  if (queryKey[1] !== "detail") return true;
  const status = (data as { status?: Call["status"] } | undefined)?.status;
  return status === undefined || status === "awaiting_confirmation" || status === "awaiting_approval";
}

/**
 * Signs an approval as the signed-in approver (`POST /api/v1/approvals/{id}/sign`) and resolves to the
 * updated Approval (`status` becomes `approved` with the second signature). Rejects with ApiError
 * `forbidden` (403: the requester, not an approver, a token) or `conflict` (409: already signed, not
 * pending).
 */
export function useSignApproval() {
  const invalidate = useApprovalsInvalidation();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson<{ approval: Approval }>(`/api/v1/approvals/${encodeURIComponent(id)}/sign`, { method: "POST", body: {} }).then((body) => body.approval),
    onSettled: invalidate,
  });
}

/** The mutation key of denials, so the Approvals page can tell what was just denied (useLastDenial). */
export const DENY_APPROVAL_KEY = ["approvals", "deny"] as const;

/** How long the Approvals page says what was just denied, in ms. */
const DENIAL_NOTICE_MS = 60_000;

/** The approval denied last from this browser tab within DENIAL_NOTICE_MS (react-query's mutation cache), or null. */
export function useLastDenial(): Approval | null {
  const denied = useMutationState({
    filters: { mutationKey: DENY_APPROVAL_KEY, status: "success", predicate: (mutation) => Date.now() - mutation.state.submittedAt < DENIAL_NOTICE_MS },
    select: (mutation) => mutation.state.data as Approval | undefined,
  });
  return denied.at(-1) ?? null;
}

/**
 * Denies an approval with a reason (`POST /api/v1/approvals/{id}/deny` `{reason}`): terminal, the call
 * ends `denied`. Resolves to the updated Approval; rejects like useSignApproval.
 */
export function useDenyApproval() {
  const invalidate = useApprovalsInvalidation();
  return useMutation({
    mutationKey: DENY_APPROVAL_KEY,
    mutationFn: ({ id, reason }: { id: string; reason: string }) =>
      fetchJson<{ approval: Approval }>(`/api/v1/approvals/${encodeURIComponent(id)}/deny`, { method: "POST", body: { reason } }).then(
        (body) => body.approval,
      ),
    onSettled: invalidate,
  });
}

/**
 * Confirms a call awaiting confirmation (`POST /api/v1/calls/{id}/confirm` `{"wait": false}`, operator
 * and above, a person): the call starts and the answer is the Call (`queued` or `running`). Rejects with
 * ApiError `forbidden` or `conflict` (no longer awaiting confirmation).
 */
export function useConfirmCall() {
  const invalidate = useApprovalsInvalidation();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson<{ call: Call }>(`/api/v1/calls/${encodeURIComponent(id)}/confirm`, { method: "POST", body: { wait: false } }).then((body) => body.call),
    onSettled: invalidate,
  });
}

/**
 * Drops a call that awaits a person (`POST /api/v1/calls/{id}/cancel`): the run dialog's "Don't run".
 * Resolves to the ended Call; rejects with ApiError `not_running` / `conflict` when it had moved on.
 */
export function useDropCall() {
  const invalidate = useApprovalsInvalidation();
  return useMutation({
    mutationFn: (id: string) => fetchJson<{ call: Call }>(`/api/v1/calls/${encodeURIComponent(id)}/cancel`, { method: "POST" }).then((body) => body.call),
    onSettled: invalidate,
  });
}
