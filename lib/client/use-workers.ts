"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { WorkerInfo, WorkerSkillPage } from "@/lib/types/worker";
import { fetchJson, withQuery } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** How often the Workers page re-reads the workers, in ms: about one heartbeat, so states and counts stay live. */
export const WORKERS_REFRESH_MS = 5000;

/**
 * Every worker the console knows (`GET /api/v1/workers`, operator and above; DESIGN.md "Workers and
 * the sandbox"): live, lost and stopped, each with its sandbox, limits, heartbeat, running calls and
 * skills. Re-read every WORKERS_REFRESH_MS while the page is open. `enabled` is false for a viewer,
 * whom the server would refuse.
 */
export function useWorkers(enabled = true) {
  return useQuery({
    queryKey: queryKeys.workers.list(),
    queryFn: ({ signal }) => fetchJson<{ workers: WorkerInfo[] }>("/api/v1/workers", { signal }).then((body) => body.workers),
    enabled,
    refetchInterval: WORKERS_REFRESH_MS,
  });
}

/** Skills fetched per page of one worker's list. */
export const WORKER_SKILLS_PAGE_SIZE = 200;

/**
 * Every skill one worker holds whose name contains `q` ("" for all), by name, in pages of
 * WORKER_SKILLS_PAGE_SIZE (`GET /api/v1/workers/{id}/skills?after=&limit=&q=` → WorkerSkillPage): `fetchNextPage()` loads the
 * names after the last one held, until a page's `next` is null. Not fetched until `enabled` (the
 * operator asked for the whole list: `GET /api/v1/workers` carries only the first skills).
 */
export function useWorkerSkills(workerId: string, q: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: queryKeys.workers.skills(workerId, q),
    initialPageParam: "",
    queryFn: ({ pageParam, signal }) =>
      fetchJson<WorkerSkillPage>(withQuery(`/api/v1/workers/${encodeURIComponent(workerId)}/skills`, { after: pageParam || undefined, limit: WORKER_SKILLS_PAGE_SIZE, q }), { signal }),
    getNextPageParam: (lastPage) => lastPage.next ?? undefined,
    enabled,
  });
}
