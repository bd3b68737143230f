"use client";

import { useQuery } from "@tanstack/react-query";
import type { WorkerInfo } from "@/lib/types/worker";
import { fetchJson } from "./fetch-json";
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
