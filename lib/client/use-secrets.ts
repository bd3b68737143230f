"use client";

import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { SecretInfo } from "@/lib/types/secret";
import { fetchJson } from "./fetch-json";
import type { OneTimeValue } from "./one-time-value";
import { queryKeys } from "./query-keys";

/** Skill secrets (`GET /api/v1/secrets`, admin), by name: names, skills, fingerprints, who and when — never a value. */
export function useSecrets(enabled = true) {
  return useQuery({
    queryKey: queryKeys.secrets.list(),
    queryFn: ({ signal }) => fetchJson<{ secrets: SecretInfo[] }>("/api/v1/secrets", { signal }).then((body) => body.secrets),
    enabled,
  });
}

/** What creating a secret takes; the value is a OneTimeValue, so the mutation's state never keeps it. */
export interface CreateSecretInput {
  name: string;
  value: OneTimeValue;
  skills: string[];
}

/** What changing a secret takes: a new value, new skills, or both. */
export interface UpdateSecretInput {
  name: string;
  value?: OneTimeValue;
  skills?: string[];
}

/**
 * A secret change makes skills available or unavailable (a needed secret given or taken) and voids
 * pending approvals of its skills: the secrets, the skills and the approvals are read again.
 */
function refreshAfterSecretChange(queryClient: QueryClient) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: queryKeys.secrets.all }),
    queryClient.invalidateQueries({ queryKey: queryKeys.skills.all }),
    queryClient.invalidateQueries({ queryKey: queryKeys.approvals.all }),
  ]);
}

/**
 * Creates a secret (`POST /api/v1/secrets` `{name, value, skills}`, admin in person) and resolves to
 * its SecretInfo. Rejects with ApiError `bad_request` / `too_large` (a bad name, value or skill; the
 * message never quotes the value), `conflict` (the name exists) or `forbidden`.
 */
export function useCreateSecret() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, value, skills }: CreateSecretInput) =>
      fetchJson<{ secret: SecretInfo }>("/api/v1/secrets", { method: "POST", body: { name, value: value.take(), skills } }).then((body) => body.secret),
    onSuccess: () => refreshAfterSecretChange(queryClient),
  });
}

/**
 * Changes a secret's value and/or skills (`PUT /api/v1/secrets/{name}`, admin in person) and resolves
 * to its SecretInfo; only the fields given are sent. Rejects with ApiError `bad_request`, `too_large`
 * or `not_found`.
 */
export function useUpdateSecret() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, value, skills }: UpdateSecretInput) =>
      fetchJson<{ secret: SecretInfo }>(`/api/v1/secrets/${encodeURIComponent(name)}`, {
        method: "PUT",
        body: { ...(value === undefined ? {} : { value: value.take() }), ...(skills === undefined ? {} : { skills }) },
      }).then((body) => body.secret),
    onSuccess: () => refreshAfterSecretChange(queryClient),
  });
}

/** Deletes a secret (`DELETE /api/v1/secrets/{name}`, admin in person) and resolves to it as it was. Rejects with ApiError `not_found`. */
export function useDeleteSecret() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => fetchJson<{ secret: SecretInfo }>(`/api/v1/secrets/${encodeURIComponent(name)}`, { method: "DELETE" }).then((body) => body.secret),
    onSettled: () => refreshAfterSecretChange(queryClient),
  });
}
