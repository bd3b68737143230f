"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { fetchJson } from "./fetch-json";
import { useDebouncedValue } from "./use-debounced-value";

/** How long the query must stay unchanged before skill_search is called, ms (issue 5 point 8). */
export const SKILL_SEARCH_DEBOUNCE_MS = 250;

/** How many matches the console's search box asks skill_search for. */
export const SKILL_SEARCH_LIMIT = 10;

/**
 * One ranked match of the `skill_search` agent tool: `confidence` is in (0, 1], rounded to 2 decimals
 * by the server; matches come best first, unavailable ones below available ones of similar confidence.
 */
export interface SkillSearchMatch {
  name: string;
  description: string;
  category: string;
  confidence: number;
  /** Whether this host can run it (absent from an older server: treated as available). */
  available?: boolean;
}

/**
 * Ranked search over the skills `persona` may see (absent = the server's default persona), through the
 * agent tool `skill_search` (`POST /api/v1/tools/call {name: "skill_search", arguments: {query, limit}}`),
 * so the console ranks exactly as an agent's search does. The query is trimmed and debounced
 * SKILL_SEARCH_DEBOUNCE_MS; an empty query sends nothing. While the next answer loads the previous
 * matches stay (`isPlaceholderData`). `debouncedQuery` is the query the data answers.
 */
export function useSkillSearch(query: string, persona?: string) {
  const debouncedQuery = useDebouncedValue(query.trim(), SKILL_SEARCH_DEBOUNCE_MS);
  const result = useQuery<SkillSearchMatch[], Error, SkillSearchMatch[], readonly unknown[]>({
    queryKey: ["skills", "search", debouncedQuery, persona ?? null],
    enabled: debouncedQuery !== "",
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    queryFn: ({ signal }) =>
      fetchJson<{ result: { matches: SkillSearchMatch[] } }>("/api/v1/tools/call", {
        method: "POST",
        body: { name: "skill_search", arguments: { query: debouncedQuery, limit: SKILL_SEARCH_LIMIT }, ...(persona ? { persona } : {}) },
        signal,
      }).then((body) => body.result.matches),
  });
  return { ...result, debouncedQuery, settling: debouncedQuery !== query.trim() };
}
