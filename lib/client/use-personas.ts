"use client";

import { useQuery } from "@tanstack/react-query";
import type { Persona } from "@/lib/types/persona";
import { fetchJson } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** Every persona (`GET /api/v1/personas` → `{personas}`), as the API spells them (YAML field names). */
export function usePersonas() {
  return useQuery({
    queryKey: queryKeys.personas.list(),
    queryFn: ({ signal }) => fetchJson<{ personas: Persona[] }>("/api/v1/personas", { signal }).then((body) => body.personas),
  });
}
