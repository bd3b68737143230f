"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import type { AuditEntry } from "@/lib/types/audit";
import { fetchJson, withQuery } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** Entries fetched per page of the audit trail. */
export const AUDIT_PAGE_SIZE = 200;

/**
 * The audit trail (`GET /api/v1/audit?limit=&before=&callId=` → `{entries}`), newest first, in pages of
 * AUDIT_PAGE_SIZE: `fetchNextPage()` loads the entries older than the oldest one held (`before` = its
 * id); a page shorter than the size means the start of the trail was reached. `callId` ("" for all)
 * keeps only one call's entries.
 */
export function useAuditTrail(callId: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.audit.list(callId),
    initialPageParam: undefined as number | undefined,
    queryFn: ({ pageParam, signal }) =>
      fetchJson<{ entries: AuditEntry[] }>(withQuery("/api/v1/audit", { limit: AUDIT_PAGE_SIZE, before: pageParam, callId }), { signal }).then(
        (body) => body.entries,
      ),
    getNextPageParam: (lastPage) => (lastPage.length < AUDIT_PAGE_SIZE ? undefined : lastPage[lastPage.length - 1]?.id),
  });
}
