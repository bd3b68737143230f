"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { AUDIT_FILTER_NAMES, type AuditEntry, type AuditExportFormat, type AuditFilters } from "@/lib/types/audit";
import { fetchJson, withQuery, type ApiPath } from "./fetch-json";
import { queryKeys } from "./query-keys";

/** Entries fetched per page of the audit trail. */
export const AUDIT_PAGE_SIZE = 200;

/** `filters` as query parameters of the audit routes and page (the same names), absent ones left out. */
function filterParams(filters: AuditFilters): Record<string, string | undefined> {
  return Object.fromEntries(AUDIT_FILTER_NAMES.map((name) => [name, filters[name]]));
}

/**
 * The audit trail (`GET /api/v1/audit?limit=&before=&actor=&skill=&action=&callId=` → `{entries}`),
 * newest first, in pages of AUDIT_PAGE_SIZE: `fetchNextPage()` loads the entries older than the oldest
 * one held (`before` = its id); a page shorter than the size means the start of the trail was reached.
 * `filters` (AuditFilters) narrow it; a filter the server refuses fails the query with its message.
 */
export function useAuditTrail(filters: AuditFilters) {
  return useInfiniteQuery({
    queryKey: queryKeys.audit.list(filters),
    initialPageParam: undefined as number | undefined,
    queryFn: ({ pageParam, signal }) =>
      fetchJson<{ entries: AuditEntry[] }>(withQuery("/api/v1/audit", { limit: AUDIT_PAGE_SIZE, before: pageParam, ...filterParams(filters) }), { signal }).then(
        (body) => body.entries,
      ),
    getNextPageParam: (lastPage) => (lastPage.length < AUDIT_PAGE_SIZE ? undefined : lastPage[lastPage.length - 1]?.id),
  });
}

/** The download address of the audit trail that `filters` keep, as `format` (`GET /api/v1/audit/export`). */
export function auditExportUrl(filters: AuditFilters, format: AuditExportFormat): ApiPath {
  return withQuery("/api/v1/audit/export", { format, ...filterParams(filters) });
}
