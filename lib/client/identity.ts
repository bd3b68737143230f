"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Identity } from "@/lib/types/identity";
import { ApiError } from "./api-error";
import { fetchJson, setSigningOut } from "./fetch-json";
import { queryKeys } from "./query-keys";

export type { Identity };

/**
 * Who is using the console (`GET /api/v1/auth/session` → `{identity}`): the react-query result whose
 * `data` is the signed-in person's Identity (email, role, via). The console layout seeds it from the
 * server (no loading flash in the navigation). Pages use it to explain disabled actions (the requester
 * of a call, a signer, a role too low); the server still decides every request.
 */
export function useIdentity() {
  return useQuery({
    queryKey: queryKeys.session.identity(),
    queryFn: ({ signal }) => fetchJson<{ identity: Identity }>("/api/v1/auth/session", { signal }).then((body) => body.identity),
    staleTime: 60_000,
  });
}

/**
 * Signs the person out (`POST /api/v1/auth/logout`: the database session is deleted and the cookie
 * cleared), forgets every cached answer, and loads /login as a fresh page.
 */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => {
      // Other requests answered 401 from now on must not send the browser elsewhere first.
      setSigningOut(true);
      return fetchJson<{ ok: true }>("/api/v1/auth/logout", { method: "POST" });
    },
    onSuccess: () => {
      queryClient.clear();
      window.location.assign("/login");
    },
    onError: (error) => {
      // Already signed out (the session expired or was revoked): there is nothing left to end.
      if (error instanceof ApiError && error.status === 401) {
        queryClient.clear();
        window.location.assign("/login");
        return;
      }
      setSigningOut(false);
    },
  });
}
