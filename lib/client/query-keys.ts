import type { ApprovalStatus } from "@/lib/types/approval";
import type { AuditFilters } from "@/lib/types/audit";
import type { CallStatus } from "@/lib/types/call";

/** Filters of the calls history (`GET /api/v1/calls`). */
export interface CallFilters {
  skill?: string;
  status?: CallStatus;
  limit?: number;
}

/**
 * Every react-query key of the console, spelled only here so that a mutation can invalidate exactly
 * what it changed. Keys are hierarchical: invalidating `queryKeys.calls.all` refreshes every call query.
 */
export const queryKeys = {
  skills: {
    all: ["skills"] as const,
    list: () => ["skills", "list"] as const,
    detail: (name: string) => ["skills", "detail", name] as const,
  },
  calls: {
    all: ["calls"] as const,
    list: (filters: CallFilters) => ["calls", "list", filters] as const,
    detail: (id: string) => ["calls", "detail", id] as const,
  },
  presets: {
    all: ["presets"] as const,
    list: (skill: string) => ["presets", "list", skill] as const,
  },
  loader: {
    report: () => ["loader", "report"] as const,
  },
  reference: {
    openapi: () => ["reference", "openapi"] as const,
  },
  approvals: {
    all: ["approvals"] as const,
    list: (status: ApprovalStatus | "all") => ["approvals", "list", status] as const,
    /** The navigation badge's own copy of the pending list (see usePendingApprovalCount). */
    badge: () => ["approvals", "badge"] as const,
  },
  personas: {
    all: ["personas"] as const,
    list: () => ["personas", "list"] as const,
  },
  session: {
    identity: () => ["session", "identity"] as const,
  },
  tokens: {
    all: ["tokens"] as const,
    list: () => ["tokens", "list"] as const,
  },
  users: {
    all: ["users"] as const,
    list: () => ["users", "list"] as const,
  },
  audit: {
    all: ["audit"] as const,
    list: (filters: AuditFilters) => ["audit", "list", filters] as const,
  },
  workers: {
    all: ["workers"] as const,
    list: () => ["workers", "list"] as const,
    /** Which workers hold one skill: under `workers` so that what changes workers refreshes it too. */
    holders: (skill: string) => ["workers", "holders", skill] as const,
    /** Every skill one worker holds, paged (the Workers page's "Show all"). */
    skills: (workerId: string, q: string) => ["workers", "skills", workerId, q] as const,
  },
  secrets: {
    all: ["secrets"] as const,
    list: () => ["secrets", "list"] as const,
  },
  packs: {
    all: ["packs"] as const,
    list: () => ["packs", "list"] as const,
    detail: (id: string) => ["packs", "detail", id] as const,
  },
  webhooks: {
    all: ["webhooks"] as const,
    list: () => ["webhooks", "list"] as const,
    deliveries: (id: string) => ["webhooks", "deliveries", id] as const,
  },
  workerTokens: {
    all: ["worker-tokens"] as const,
    list: () => ["worker-tokens", "list"] as const,
  },
};
