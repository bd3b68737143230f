"use client";

import { useSearchParams } from "next/navigation";
import { useDeferredValue, useEffect, useMemo, useState } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { useDebouncedValue } from "@/lib/client/use-debounced-value";
import { useSkills } from "@/lib/client/use-skills";
import { filterSkills, groupByCategory, indexSkills } from "./filter-skills";
import { CategoryChip } from "./category-chip";
import { SkillFilter } from "./skill-filter";
import { SkillSearchBox } from "./skill-search-box";
import { SkillList, SkillListSkeleton } from "./skill-list";
import { SkillsEmptyState } from "./skills-empty-state";

const FILTER_DEBOUNCE_MS = 150;

/**
 * Sets (or, for "", removes) one query parameter of the current URL without a navigation. The `null`
 * state lets Next.js sync useSearchParams with the new URL (it skips states that are its own).
 */
function replaceSearchParam(name: string, value: string) {
  const url = new URL(window.location.href);
  if (value) url.searchParams.set(name, value);
  else url.searchParams.delete(name);
  if (url.href !== window.location.href) window.history.replaceState(null, "", url);
}

/**
 * The Skills page body: every registered skill grouped by category, with a debounced, case-insensitive
 * filter kept in the URL (`?q=`) so that Back restores it, and a category filter (`?category=`, set by
 * the category links of skill pages) shown as a removable chip; above the list, the ranked search box
 * (skill_search, SkillSearchBox). Loading skeleton, error and empty states.
 */
export function SkillsPage() {
  const searchParams = useSearchParams();
  const [query, setQuery] = useState(() => searchParams.get("q") ?? "");
  const category = searchParams.get("category") ?? "";
  // Debounced, then deferred: re-rendering thousands of rows never blocks typing.
  const debouncedQuery = useDeferredValue(useDebouncedValue(query, FILTER_DEBOUNCE_MS));
  const skills = useSkills();

  useEffect(() => replaceSearchParam("q", debouncedQuery), [debouncedQuery]);

  // Lowercase haystacks once per skill list: each filter pass is then only `includes` calls.
  const index = useMemo(() => indexSkills(skills.data ?? []), [skills.data]);
  const filtered = useMemo(() => filterSkills(index, debouncedQuery, category), [index, debouncedQuery, category]);
  const narrowed = debouncedQuery !== "" || category !== "";

  const groups = useMemo(() => groupByCategory(filtered), [filtered]);
  const total = skills.data?.length ?? 0;
  const categoryCount = useMemo(() => new Set(skills.data?.map((skill) => skill.category)).size, [skills.data]);

  function clearFilters() {
    setQuery("");
    replaceSearchParam("category", "");
  }

  return (
    <>
      <PageHeader
        title="Skills"
        description={
          skills.data
            ? `${total} skill${total === 1 ? "" : "s"} in ${categoryCount} categor${categoryCount === 1 ? "y" : "ies"}; each persona's policy decides which it may run.`
            : "Every registered skill, by category."
        }
        actions={<SkillFilter value={query} onChange={setQuery} />}
      />
      {total > 0 ? <SkillSearchBox /> : null}
      {skills.isPending ? (
        <SkillListSkeleton />
      ) : skills.isError ? (
        <LoadFailed title="Could not load the skills" error={skills.error} onRetry={() => void skills.refetch()} />
      ) : total === 0 ? (
        <SkillsEmptyState />
      ) : groups.length === 0 ? (
        <>
          {category ? <CategoryChip category={category} onRemove={() => replaceSearchParam("category", "")} className="mb-3" /> : null}
          <EmptyState
            title={
              debouncedQuery
                ? `No skill matches “${debouncedQuery}”${category ? ` in category “${category}”` : ""}`
                : `No skill in category “${category}”`
            }
            actions={
              <Button size="sm" onClick={clearFilters}>
                {category && debouncedQuery ? "Clear the filters" : category ? "Show every category" : "Clear the filter"}
              </Button>
            }
          >
            {debouncedQuery ? "The filter looks at names, descriptions and categories." : "No registered skill has this category."}
          </EmptyState>
        </>
      ) : (
        <>
          {narrowed ? (
            <div className="mb-3 flex flex-wrap items-center gap-3">
              {category ? <CategoryChip category={category} onRemove={() => replaceSearchParam("category", "")} /> : null}
              <p className="text-xs text-zinc-500" role="status">
                {filtered.length} of {total} skills {debouncedQuery ? `match “${debouncedQuery}”` : "shown"}
                {category ? ` in category “${category}”` : ""}.
              </p>
            </div>
          ) : null}
          <SkillList groups={groups} />
        </>
      )}
    </>
  );
}
