"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useCalls } from "@/lib/client/use-calls";
import { useSkills } from "@/lib/client/use-skills";
import { CALL_STATUSES, type CallStatus } from "@/lib/types/call";
import { CallsFilters, type CallsFilterValue, type SkillSuggestion } from "./calls-filters";
import { CallsTable } from "./calls-table";

/** How many calls the history shows. */
const HISTORY_LIMIT = 100;

/**
 * What the Skill filter suggests: every registered skill, plus the skills of the calls at hand that are
 * no longer registered (their calls stay in the history). Sorted by name.
 */
function skillSuggestions(registered: readonly string[], seenInCalls: Iterable<string>): SkillSuggestion[] {
  const known = new Set(registered);
  const suggestions: SkillSuggestion[] = registered.map((name) => ({ name, registered: true }));
  for (const name of new Set(seenInCalls)) if (!known.has(name)) suggestions.push({ name, registered: false });
  return suggestions.sort((a, b) => a.name.localeCompare(b.name));
}

function readFilters(params: URLSearchParams): CallsFilterValue {
  const status = params.get("status") ?? "";
  return {
    skill: params.get("skill") ?? "",
    status: (CALL_STATUSES as readonly string[]).includes(status) ? (status as CallStatus) : "",
  };
}

/** Placeholder of the calls history while it loads. */
export function CallsTableSkeleton() {
  return (
    <Card>
      <SkeletonRows rows={8} className="p-4" />
    </Card>
  );
}

/**
 * The calls history page body: the newest calls (up to HISTORY_LIMIT) filtered by skill and status,
 * the filters kept in the URL (`?skill=&status=`), with loading, error and empty states. The skill
 * filter suggests registered skills and those of past calls.
 */
export function CallsPage() {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const filters = useMemo(() => readFilters(new URLSearchParams(searchParams.toString())), [searchParams]);
  const calls = useCalls({ skill: filters.skill || undefined, status: filters.status || undefined, limit: HISTORY_LIMIT });
  const skills = useSkills();
  // The unfiltered history (the same query as the page without filters) feeds the suggestions too.
  const recent = useCalls({ limit: HISTORY_LIMIT });
  const suggestions = useMemo(
    () =>
      skillSuggestions(
        (skills.data ?? []).map((skill) => skill.name),
        [...(calls.data ?? []), ...(recent.data ?? [])].map((call) => call.skill),
      ),
    [skills.data, calls.data, recent.data],
  );
  const filtered = filters.skill !== "" || filters.status !== "";

  function setFilters(next: CallsFilterValue) {
    const params = new URLSearchParams();
    if (next.skill) params.set("skill", next.skill);
    if (next.status) params.set("status", next.status);
    const query = params.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  }

  return (
    <>
      <PageHeader title="Calls" description={`The latest ${HISTORY_LIMIT} calls, newest first, from people and agents alike.`} />
      <div className="mb-4">
        <CallsFilters value={filters} suggestions={suggestions} onChange={setFilters} />
      </div>
      {calls.isPending ? (
        <CallsTableSkeleton />
      ) : calls.isError ? (
        <LoadFailed title="Could not load the calls" error={calls.error} onRetry={() => void calls.refetch()} />
      ) : calls.data.length === 0 ? (
        filtered ? (
          <EmptyState
            title="No call matches these filters"
            actions={
              <Button size="sm" onClick={() => setFilters({ skill: "", status: "" })}>
                Clear filters
              </Button>
            }
          />
        ) : (
          <EmptyState
            title="No calls yet"
            actions={
              <Link href="/skills" className="inline-flex h-8 items-center rounded-md bg-zinc-900 px-3 text-sm font-medium text-white hover:bg-zinc-700">
                Pick a skill to run
              </Link>
            }
          >
            Every call — from this console, the REST API or an agent — is listed here with its status and outcome.
          </EmptyState>
        )
      ) : (
        <Card className="overflow-hidden">
          <CallsTable calls={calls.data} />
          {calls.data.length >= HISTORY_LIMIT ? (
            <p className="border-t border-zinc-200 px-4 py-2 text-xs text-zinc-500">Showing the latest {HISTORY_LIMIT}. Narrow the filters to see older calls.</p>
          ) : null}
        </Card>
      )}
    </>
  );
}
