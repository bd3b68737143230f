"use client";

import { useQuery } from "@tanstack/react-query";
import type { Skill } from "@/lib/types/skill";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/**
 * Every registered skill (`GET /api/v1/skills`), sorted by category then name by the server. The list
 * is filtered in the browser (see filterSkills) so typing in the filter box costs no request. Not
 * fetched while `enabled` is false.
 */
export function useSkills(enabled = true) {
  return useQuery({
    queryKey: queryKeys.skills.list(),
    queryFn: ({ signal }) => fetchJson<{ skills: Skill[] }>("/api/v1/skills", { signal }).then((body) => body.skills),
    enabled,
  });
}

/** One skill by name (`GET /api/v1/skills/{name}`); the query fails with ApiError `not_found` for an unknown name. */
export function useSkill(name: string) {
  return useQuery({
    queryKey: queryKeys.skills.detail(name),
    queryFn: ({ signal }) =>
      fetchJson<{ skill: Skill }>(`/api/v1/skills/${encodeURIComponent(name)}`, { signal }).then((body) => body.skill),
  });
}
