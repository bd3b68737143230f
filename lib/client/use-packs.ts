"use client";

import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { MarketplacePlugin, Pack, PackReview } from "@/lib/types/pack";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** How often pack pages read again while an enabling waits for a second admin (ms), and otherwise. */
export const PACKS_POLL_MS = { waiting: 3000, idle: 15_000 } as const;

/**
 * Every pack version, newest first (`GET /api/v1/packs`, admin), read again every few seconds while
 * one waits for a second admin (another admin's signature or denial shows without a reload).
 */
export function usePacks(enabled = true) {
  return useQuery({
    queryKey: queryKeys.packs.list(),
    queryFn: ({ signal }) => fetchJson<{ packs: Pack[] }>("/api/v1/packs", { signal }).then((body) => body.packs),
    enabled,
    refetchInterval: (query) => ((query.state.data ?? []).some((pack) => pack.status === "awaiting_approval") ? PACKS_POLL_MS.waiting : PACKS_POLL_MS.idle),
  });
}

/** One pack version's review: the Pack, every file's diff and what it is against, the digest list (`GET /api/v1/packs/{id}`); read again like usePacks. */
export function usePack(id: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.packs.detail(id),
    queryFn: ({ signal }) => fetchJson<PackReview>(`/api/v1/packs/${encodeURIComponent(id)}`, { signal }),
    enabled,
    refetchInterval: (query) => (query.state.data?.pack.status === "awaiting_approval" ? PACKS_POLL_MS.waiting : PACKS_POLL_MS.idle),
  });
}

/** A pack change adds, changes or removes skills and may void approvals: packs, skills, approvals and the loader are read again. */
function refreshAfterPackChange(queryClient: QueryClient) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: queryKeys.packs.all }),
    queryClient.invalidateQueries({ queryKey: queryKeys.skills.all }),
    queryClient.invalidateQueries({ queryKey: queryKeys.approvals.all }),
    queryClient.invalidateQueries({ queryKey: queryKeys.loader.report() }),
  ]);
}

/** Where a pack is staged from in the form. */
export type StageInput = { type: "folder"; path: string; plugin?: string } | { type: "git"; url: string; ref: string; plugin?: string } | { type: "upload"; file: File; plugin?: string };

/**
 * Stages a pack (`POST /api/v1/packs`, admin in person): a folder or git source as JSON, an upload as
 * `application/gzip` (`?plugin=` for a marketplace's plugin). Resolves to the staged Pack; rejects with
 * ApiError `bad_request` (the refusal's reason) or `too_large`.
 */
export function useStagePack() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: StageInput) => {
      if (input.type === "upload") {
        const query = input.plugin ? `?plugin=${encodeURIComponent(input.plugin)}` : "";
        return fetchJson<{ pack: Pack }>(`/api/v1/packs${query}`, { method: "POST", upload: { data: input.file, type: "application/gzip" } }).then((body) => body.pack);
      }
      return fetchJson<{ pack: Pack }>("/api/v1/packs", { method: "POST", body: { source: input } }).then((body) => body.pack);
    },
    onSuccess: () => refreshAfterPackChange(queryClient),
  });
}

/** The plugins a Claude Code marketplace at a folder or git ref offers (`POST /api/v1/packs/marketplace`). */
export function useMarketplacePlugins() {
  return useMutation({
    mutationFn: (source: { type: "folder"; path: string } | { type: "git"; url: string; ref: string }) =>
      fetchJson<{ plugins: MarketplacePlugin[] }>("/api/v1/packs/marketplace", { method: "POST", body: { source } }).then((body) => body.plugins),
  });
}

/** What enabling or rolling back answers: the pack, and the approval it waits for (null when done). */
export interface EnableResult {
  pack: Pack;
  approvalId: string | null;
}

/** Enables a pack version, or rolls the enabled one back (`POST /api/v1/packs/{id}/enable|rollback`, admin in person). */
export function usePackAction(action: "enable" | "rollback") {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson<{ pack: Pack; approvalId?: string }>(`/api/v1/packs/${encodeURIComponent(id)}/${action}`, { method: "POST" }).then((body): EnableResult => ({ pack: body.pack, approvalId: body.approvalId ?? null })),
    onSuccess: () => refreshAfterPackChange(queryClient),
  });
}

/** Uninstalls the enabled version, or discards a staged one (`DELETE /api/v1/packs/{id}`, admin in person). */
export function useDeletePack() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => fetchJson<{ pack: Pack }>(`/api/v1/packs/${encodeURIComponent(id)}`, { method: "DELETE" }).then((body) => body.pack),
    onSuccess: () => refreshAfterPackChange(queryClient),
  });
}

/** Signs or denies a pack's approval as a second admin (`POST /api/v1/approvals/{id}/sign|deny`). */
export function usePackApproval() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ approvalId, decision, reason }: { approvalId: string; decision: "sign" | "deny"; reason?: string }) =>
      fetchJson<{ pack: Pack }>(`/api/v1/approvals/${encodeURIComponent(approvalId)}/${decision}`, { method: "POST", body: decision === "deny" ? { reason: reason && reason !== "" ? reason : "denied on the Packs page" } : undefined }).then((body) => body.pack),
    onSuccess: () => refreshAfterPackChange(queryClient),
  });
}
