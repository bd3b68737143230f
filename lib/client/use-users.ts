"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ConsoleUser, Role } from "@/lib/types/identity";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** Everyone with an account (`GET /api/v1/users`, admin), oldest first. */
export function useUsers(enabled = true) {
  return useQuery({
    queryKey: queryKeys.users.list(),
    queryFn: ({ signal }) => fetchJson<{ users: ConsoleUser[] }>("/api/v1/users", { signal }).then((body) => body.users),
    enabled,
  });
}

/** What creating a person takes. */
export interface CreateUserInput {
  email: string;
  password: string;
  role: Role;
}

/**
 * Creates a person (`POST /api/v1/users`, admin) and resolves to the new ConsoleUser. Rejects with
 * ApiError `bad_request` (short password, bad email or role) or `conflict` (email taken).
 */
export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateUserInput) => fetchJson<{ user: ConsoleUser }>("/api/v1/users", { method: "POST", body: input }).then((body) => body.user),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.users.all }),
  });
}

/**
 * Changes a person's role (`PATCH /api/v1/users/{id}` `{role}`, admin); takes effect on their next
 * request. Rejects with ApiError `conflict` when it would demote the last admin, `not_found`.
 * Changing one's own role also refreshes the signed-in identity.
 */
export function useSetUserRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, role }: { id: string; role: Role }) =>
      fetchJson<{ user: ConsoleUser }>(`/api/v1/users/${encodeURIComponent(id)}`, { method: "PATCH", body: { role } }).then((body) => body.user),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.users.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.session.identity() }),
      ]),
  });
}
