"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ApiTokenInfo } from "@/lib/types/identity";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** API tokens (`GET /api/v1/tokens`, operator and above): the caller's own, or every token for an admin. */
export function useTokens(enabled = true) {
  return useQuery({
    queryKey: queryKeys.tokens.list(),
    queryFn: ({ signal }) => fetchJson<{ tokens: ApiTokenInfo[] }>("/api/v1/tokens", { signal }).then((body) => body.tokens),
    enabled,
  });
}

/** What creating a token takes: its name and the persona it acts as. */
export interface CreateTokenInput {
  name: string;
  persona: string;
}

/**
 * Creates a token owned by the signed-in person (`POST /api/v1/tokens` `{persona, name}`) and resolves
 * to `{token, info}` — the secret is in this answer only. Rejects with ApiError `bad_request`,
 * `not_found` (unknown persona) or `forbidden`.
 */
export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateTokenInput) =>
      fetchJson<{ token: string; info: ApiTokenInfo }>("/api/v1/tokens", { method: "POST", body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tokens.all }),
  });
}

/** Revokes a token (`DELETE /api/v1/tokens/{id}`, its owner or an admin) and resolves to it, revoked. */
export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      fetchJson<{ token: ApiTokenInfo }>(`/api/v1/tokens/${encodeURIComponent(id)}`, { method: "DELETE" }).then((body) => body.token),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.tokens.all }),
  });
}
