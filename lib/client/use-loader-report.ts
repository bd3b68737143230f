"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { LoaderReport, LoaderScan, LoaderWatch } from "@/lib/types/skill";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** `GET /api/v1/loader`: the last report, the history of scans (newest first) and whether the roots are watched. */
export interface LoaderState {
  report: LoaderReport;
  history: LoaderScan[];
  watch: LoaderWatch;
}

/** The loader's state (`GET /api/v1/loader`): the last report (roots, registered, skipped and failed skill files, log), the scan history and the watch. */
export function useLoaderReport() {
  return useQuery({
    queryKey: queryKeys.loader.report(),
    queryFn: ({ signal }) => fetchJson<LoaderState>("/api/v1/loader", { signal }),
  });
}

/**
 * Rescans every allow-list root (`POST /api/v1/loader/reload`) and resolves to the new report; on
 * success the loader state (with the new scan in its history) and every skills query are refreshed.
 */
export function useReloadLoader() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      fetchJson<{ report: LoaderReport }>("/api/v1/loader/reload", { method: "POST" }).then((body) => body.report),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: queryKeys.loader.report() }), queryClient.invalidateQueries({ queryKey: queryKeys.skills.all })]),
  });
}
