"use client";

import { useQuery } from "@tanstack/react-query";
import type { SkillHolders } from "@/lib/types/worker";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";
import { WORKERS_REFRESH_MS } from "./use-workers";

/**
 * Which workers hold skill `name` and with which digest (`GET /api/v1/skills/{name}/workers` →
 * SkillHolders; DESIGN.md "Claiming": drift is visible on the skill page), with the console's own
 * digest. Re-read every WORKERS_REFRESH_MS, as the Workers page is. Fails with ApiError `not_found`
 * for an unknown skill.
 */
export function useSkillWorkers(name: string) {
  return useQuery({
    queryKey: queryKeys.workers.holders(name),
    queryFn: ({ signal }) => fetchJson<SkillHolders>(`/api/v1/skills/${encodeURIComponent(name)}/workers`, { signal }),
    refetchInterval: WORKERS_REFRESH_MS,
  });
}
