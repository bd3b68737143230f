"use client";

import { useRouter } from "next/navigation";
import { memo, useMemo, type MouseEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";
import type { Skill } from "@/lib/types/skill";
import { VirtualList } from "@/components/ui/virtual-list";
import { flattenGroups, type SkillGroup } from "./filter-skills";
import { isReadOnlyNative, SkillClassBadge } from "./skill-class-badge";

const ROW_GRID =
  "grid grid-cols-[minmax(0,1fr)_6rem] items-center gap-4 sm:grid-cols-[minmax(10rem,16rem)_minmax(0,1fr)_5.5rem_4rem_6rem]";

/** Height of every list row (category heading or skill), px: fixed so the list can be windowed. */
const ROW_HEIGHT = 40;

/**
 * One skill as a light row: a stretched link on the name (with `native`, `unavailable` and warning
 * badges), then description, kind, timeout and class — for a native skill with no scripts, no timeout
 * and `safe` (reading it is all it does; issue 12 point 4). The link is a plain `<a>` (no next/link per row: its viewport prefetching costs too much with
 * thousands of rows); SkillList routes its clicks on the client. One line high: long text truncates.
 */
const SkillRow = memo(function SkillRow({ skill }: { skill: Skill }) {
  const readOnly = isReadOnlyNative(skill);
  return (
    <div
      role="row"
      data-testid="skill-row"
      data-category={skill.category}
      className={`group relative h-full border-x border-b border-zinc-200 border-b-zinc-100 bg-white px-4 hover:bg-zinc-50 ${ROW_GRID}`}
    >
      <div role="cell" className="flex min-w-0 items-center gap-2">
        <a
          href={`/skills/${encodeURIComponent(skill.name)}`}
          className="truncate font-mono text-[13px] font-medium text-zinc-900 after:absolute after:inset-0 group-hover:text-blue-700 focus-visible:outline-none focus-visible:after:rounded focus-visible:after:ring-2 focus-visible:after:ring-blue-600"
        >
          {skill.name}
        </a>
        {skill.kind === "native" ? (
          <Badge tone="violet" title="A SKILL.md skill: instructions, resources and scripts">
            native
          </Badge>
        ) : null}
        {!skill.available ? (
          <Badge tone="red" title={skill.unavailableReason ?? "unavailable"}>
            unavailable
          </Badge>
        ) : null}
        {skill.warnings.length > 0 ? (
          <Badge tone="amber" title={skill.warnings.join("\n")}>
            {skill.warnings.length} warning{skill.warnings.length === 1 ? "" : "s"}
          </Badge>
        ) : null}
      </div>
      <p role="cell" className="hidden truncate text-sm text-zinc-600 sm:block" title={skill.description}>
        {skill.description}
      </p>
      <span role="cell" className="hidden text-xs text-zinc-500 sm:block">
        {skill.kind}
      </span>
      <span role="cell" className="hidden font-mono text-xs text-zinc-500 tabular-nums sm:block" title={readOnly ? "No scripts: nothing runs" : "Timeout"}>
        {readOnly ? "–" : `${skill.timeoutSeconds}s`}
      </span>
      <span role="cell" className="justify-self-end">
        {readOnly ? (
          <SkillClassBadge skillClass="safe" title="A native skill with no scripts: reading it is all it does, and reading is safe." />
        ) : (
          <SkillClassBadge skillClass={skill.class} title={skill.kind === "native" ? "What running its scripts needs (reading it is safe)." : undefined} />
        )}
      </span>
    </div>
  );
});

/** A category's heading row (h2) with its skill count; it opens the category's bordered block. */
const CategoryHeading = memo(function CategoryHeading({ category, count }: { category: string; count: number }) {
  return (
    <div className="flex h-full items-end pt-2">
      <div className="flex h-8 w-full items-center gap-2 rounded-t-lg border border-zinc-200 bg-zinc-50 px-4" data-testid="skill-category">
        <h2 id={`category-${category}`} className="text-sm font-semibold text-zinc-900">
          {category}
        </h2>
        <span className="rounded-full bg-zinc-200/70 px-1.5 text-[11px] font-medium text-zinc-600 tabular-nums" aria-label={`${count} skills`} data-testid="skill-category-count">
          {count}
        </span>
      </div>
    </div>
  );
});

/**
 * The skills grouped by category as one windowed list (category headings and skill rows in the same
 * fixed-height rows, scrolled by the page): only the rows in view are in the DOM, so 5,000 skills
 * stay fluid. One delegated handler turns a plain left click on a row link into a client navigation.
 */
export function SkillList({ groups }: { groups: SkillGroup[] }) {
  const router = useRouter();
  const items = useMemo(() => flattenGroups(groups), [groups]);

  function onClick(event: MouseEvent<HTMLDivElement>) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element).closest("a");
    const href = anchor?.getAttribute("href");
    if (!anchor || !href?.startsWith("/")) return;
    event.preventDefault();
    router.push(href);
  }

  return (
    <div onClick={onClick}>
      <div className={`hidden px-4 pb-1 text-[11px] font-medium tracking-wide text-zinc-500 uppercase sm:grid`} aria-hidden="true">
        <div className={ROW_GRID}>
          <span>Name</span>
          <span>Description</span>
          <span>Kind</span>
          <span>Timeout</span>
          <span className="justify-self-end">Class</span>
        </div>
      </div>
      <VirtualList
        role="table"
        aria-label="Skills by category"
        aria-rowcount={items.length}
        scroller="window"
        count={items.length}
        rowHeight={ROW_HEIGHT}
        overscan={20}
        rowKey={(index) => {
          const item = items[index];
          return item?.kind === "category" ? `#${item.category}` : (item?.skill.name ?? index);
        }}
        renderRow={(index) => {
          const item = items[index];
          if (!item) return null;
          return item.kind === "category" ? <CategoryHeading category={item.category} count={item.count} /> : <SkillRow skill={item.skill} />;
        }}
        className="pb-4"
      />
    </div>
  );
}

/** Placeholder of SkillList while the skills load (also used by the route's loading.tsx). */
export function SkillListSkeleton() {
  return (
    <div role="status" aria-label="Loading skills" className="space-y-4">
      {[4, 3].map((rows, section) => (
        <div key={section} className="overflow-hidden rounded-lg border border-zinc-200 bg-white">
          <div className="border-b border-zinc-200 bg-zinc-50/70 px-4 py-2.5">
            <Skeleton className="h-4 w-24" />
          </div>
          <div className="divide-y divide-zinc-100">
            {Array.from({ length: rows }, (_, row) => (
              <div key={row} className="flex items-center gap-6 px-4 py-2.5">
                <Skeleton className="h-4 w-40" />
                <Skeleton className="h-4 flex-1" />
                <Skeleton className="h-4 w-14" />
              </div>
            ))}
          </div>
        </div>
      ))}
    </div>
  );
}
