"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { isTerminalStatus, type Call, type CallStatus, type CallWithEvents } from "@/lib/types/call";
import { fetchJson, withQuery } from "./fetch-json";
import { queryKeys, type CallFilters } from "./query-keys";

/**
 * The calls history (`GET /api/v1/calls`), newest first, narrowed by `filters`. While any listed call
 * is still running the list refreshes every `liveRefreshMs` (default 3000 ms) so statuses settle.
 */
export function useCalls(filters: CallFilters, liveRefreshMs = 3000) {
  return useQuery({
    queryKey: queryKeys.calls.list(filters),
    queryFn: ({ signal }) =>
      fetchJson<{ calls: Call[] }>(
        withQuery("/api/v1/calls", { skill: filters.skill, status: filters.status, limit: filters.limit }),
        { signal },
      ).then((body) => body.calls),
    refetchInterval: (query) =>
      query.state.data?.some((call) => !isTerminalStatus(call.status)) ? liveRefreshMs : false,
  });
}

/** How often a call waiting for a person (confirmation or signatures) is re-read, in ms. */
export const AWAITING_POLL_MS = 1500;

/**
 * One call with its stored timeline (`GET /api/v1/calls/{id}`). `pollMs` turns on polling, which the
 * call page uses only when its event stream failed and the call is not finished yet. A call awaiting
 * confirmation or approval is always re-read every AWAITING_POLL_MS: it has no event stream yet, and it
 * may start on another console process after the last signature.
 */
export function useCall(id: string, pollMs: number | false = false) {
  return useQuery({
    queryKey: queryKeys.calls.detail(id),
    queryFn: ({ signal }) =>
      fetchJson<{ call: CallWithEvents }>(`/api/v1/calls/${encodeURIComponent(id)}`, { signal }).then((body) => body.call),
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      if (status === undefined || isTerminalStatus(status)) return false;
      if (isAwaitingStatus(status)) return AWAITING_POLL_MS;
      return pollMs;
    },
  });
}

/** True while a call waits for a person: a confirmation or two approvers' signatures. */
export function isAwaitingStatus(status: CallStatus): status is "awaiting_confirmation" | "awaiting_approval" {
  return status === "awaiting_confirmation" || status === "awaiting_approval";
}

/** What starting a call takes: the skill's name, the args object and the persona it runs under (absent = default). */
export interface StartCallInput {
  skill: string;
  args: Record<string, unknown>;
  persona?: string;
}

/**
 * Starts a call without waiting for it (`POST /api/v1/skills/{name}/calls` with `wait: false` and the
 * persona) and resolves to the created Call: `queued` or `running`, or `awaiting_confirmation` /
 * `awaiting_approval` when the policy wants a person first. Rejects with ApiError `invalid_args` (ajv
 * errors in `details`), `forbidden` (the policy's reason), `bad_request` (unknown persona),
 * `args_too_large` or `not_found`.
 */
export function useStartCall() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ skill, args, persona }: StartCallInput) =>
      fetchJson<{ call: Call }>(`/api/v1/skills/${encodeURIComponent(skill)}/calls`, {
        method: "POST",
        body: persona === undefined ? { args, wait: false } : { args, persona, wait: false },
      }).then((body) => body.call),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.calls.all }),
  });
}

/**
 * Cancels a running call (`POST /api/v1/calls/{id}/cancel`); the server answers once the process group
 * is gone, with the call in status `cancelled`. Rejects with ApiError `not_running` when it had ended.
 */
export function useCancelCall(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      fetchJson<{ call: Call }>(`/api/v1/calls/${encodeURIComponent(id)}/cancel`, { method: "POST" }).then((body) => body.call),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.calls.all }),
  });
}
