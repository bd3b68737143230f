"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { WorkerTokenInfo } from "@/lib/types/worker";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** Worker tokens (`GET /api/v1/worker-tokens`, admin), newest first, never the tokens themselves. */
export function useWorkerTokens(enabled = true) {
  return useQuery({
    queryKey: queryKeys.workerTokens.list(),
    queryFn: ({ signal }) => fetchJson<{ workerTokens: WorkerTokenInfo[] }>("/api/v1/worker-tokens", { signal }).then((body) => body.workerTokens),
    enabled,
  });
}

/** What creating a worker token takes: its name and the labels every worker using it gets. */
export interface CreateWorkerTokenInput {
  name: string;
  labels: string[];
}

/**
 * Creates a worker token (`POST /api/v1/worker-tokens` `{name, labels}`, admin; DESIGN.md "Worker
 * tokens") and resolves to `{token, workerToken}` — the token is in this answer only. Rejects with
 * ApiError `bad_request` (a bad name or label) or `forbidden`.
 */
export function useCreateWorkerToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateWorkerTokenInput) =>
      fetchJson<{ token: string; workerToken: WorkerTokenInfo }>("/api/v1/worker-tokens", { method: "POST", body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.workerTokens.all }),
  });
}

/**
 * Revokes a worker token (`DELETE /api/v1/worker-tokens/{id}`, admin) and resolves to it, revoked. Its
 * workers are cut off and their running calls end `interrupted`, so the workers (and the calls) are
 * re-read too.
 */
export function useRevokeWorkerToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson<{ workerToken: WorkerTokenInfo }>(`/api/v1/worker-tokens/${encodeURIComponent(id)}`, { method: "DELETE" }).then((body) => body.workerToken),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.workerTokens.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.workers.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.calls.all }),
      ]),
  });
}
