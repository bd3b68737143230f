"use client";

import { useQuery } from "@tanstack/react-query";
import type { OpenApiDocument } from "@/lib/types/openapi";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** The console's OpenAPI document (`GET /api/v1/openapi.json`), for the API reference page; it changes only with a new console, so it is never refetched while the page lives. */
export function useOpenApiDocument() {
  return useQuery({
    queryKey: queryKeys.reference.openapi(),
    queryFn: ({ signal }) => fetchJson<OpenApiDocument>("/api/v1/openapi.json", { signal }),
    staleTime: Infinity,
  });
}
