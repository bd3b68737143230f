"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { LoaderReport } from "@/lib/types/skill";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** The last loader report (`GET /api/v1/loader`): roots, registered, skipped and failed manifests, log. */
export function useLoaderReport() {
  return useQuery({
    queryKey: queryKeys.loader.report(),
    queryFn: ({ signal }) => fetchJson<{ report: LoaderReport }>("/api/v1/loader", { signal }).then((body) => body.report),
  });
}

/**
 * Rescans every allow-list root (`POST /api/v1/loader/reload`) and resolves to the new report; on
 * success the report query holds it and every skills query is refreshed.
 */
export function useReloadLoader() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      fetchJson<{ report: LoaderReport }>("/api/v1/loader/reload", { method: "POST" }).then((body) => body.report),
    onSuccess: (report) => {
      queryClient.setQueryData(queryKeys.loader.report(), report);
      return queryClient.invalidateQueries({ queryKey: queryKeys.skills.all });
    },
  });
}
