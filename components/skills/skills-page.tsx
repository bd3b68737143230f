"use client";

import { useSearchParams } from "next/navigation";
import { useDeferredValue, useEffect, useMemo, useState } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { useDebouncedValue } from "@/lib/client/use-debounced-value";
import { useSkills } from "@/lib/client/use-skills";
import { filterSkills, groupByCategory } from "./filter-skills";
import { SkillFilter } from "./skill-filter";
import { SkillList, SkillListSkeleton } from "./skill-list";
import { SkillsEmptyState } from "./skills-empty-state";

const FILTER_DEBOUNCE_MS = 150;

/**
 * The Skills page body: every registered skill grouped by category, with a debounced, case-insensitive
 * filter kept in the URL (`?q=`) so that Back restores it. Loading skeleton, error and empty states.
 */
export function SkillsPage() {
  const searchParams = useSearchParams();
  const [query, setQuery] = useState(() => searchParams.get("q") ?? "");
  // Debounced, then deferred: re-rendering thousands of rows never blocks typing.
  const debouncedQuery = useDeferredValue(useDebouncedValue(query, FILTER_DEBOUNCE_MS));
  const skills = useSkills();

  useEffect(() => {
    const url = new URL(window.location.href);
    if (debouncedQuery) url.searchParams.set("q", debouncedQuery);
    else url.searchParams.delete("q");
    window.history.replaceState(window.history.state, "", url);
  }, [debouncedQuery]);

  const filtered = useMemo(() => filterSkills(skills.data ?? [], debouncedQuery), [skills.data, debouncedQuery]);
  const groups = useMemo(() => groupByCategory(filtered), [filtered]);
  const total = skills.data?.length ?? 0;
  const categoryCount = useMemo(() => new Set(skills.data?.map((skill) => skill.category)).size, [skills.data]);

  return (
    <>
      <PageHeader
        title="Skills"
        description={
          skills.data
            ? `${total} skill${total === 1 ? "" : "s"} in ${categoryCount} categor${categoryCount === 1 ? "y" : "ies"} an agent may call.`
            : "Every skill an agent may call, by category."
        }
        actions={<SkillFilter value={query} onChange={setQuery} />}
      />
      {skills.isPending ? (
        <SkillListSkeleton />
      ) : skills.isError ? (
        <Alert
          tone="danger"
          title="Could not load the skills"
          actions={
            <Button size="sm" onClick={() => void skills.refetch()}>
              Retry
            </Button>
          }
        >
          {skills.error.message}
        </Alert>
      ) : total === 0 ? (
        <SkillsEmptyState />
      ) : groups.length === 0 ? (
        <EmptyState
          title={`No skill matches “${debouncedQuery}”`}
          actions={
            <Button size="sm" onClick={() => setQuery("")}>
              Clear the filter
            </Button>
          }
        >
          The filter looks at names, descriptions and categories.
        </EmptyState>
      ) : (
        <>
          {debouncedQuery ? (
            <p className="mb-3 text-xs text-zinc-500" role="status">
              {filtered.length} of {total} skills match “{debouncedQuery}”.
            </p>
          ) : null}
          <SkillList groups={groups} />
        </>
      )}
    </>
  );
}
