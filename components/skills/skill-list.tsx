"use client";

import { useRouter } from "next/navigation";
import { memo, type MouseEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";
import type { Skill } from "@/lib/types/skill";
import type { SkillGroup } from "./filter-skills";
import { SkillClassBadge } from "./skill-class-badge";

const ROW_GRID = "sm:grid sm:grid-cols-[minmax(10rem,16rem)_minmax(0,1fr)_5.5rem_4rem_6rem] sm:items-center sm:gap-4";

/**
 * One skill as a light row: a stretched link on the name, then description, kind, timeout and class.
 * The link is a plain `<a>` (no next/link per row: its viewport prefetching costs too much with
 * thousands of rows); SkillList routes its clicks on the client.
 */
const SkillRow = memo(function SkillRow({ skill }: { skill: Skill }) {
  return (
    <li className={`group relative px-4 py-2 hover:bg-zinc-50 ${ROW_GRID}`}>
      <div className="flex min-w-0 items-center gap-2">
        <a
          href={`/skills/${encodeURIComponent(skill.name)}`}
          className="truncate font-mono text-[13px] font-medium text-zinc-900 after:absolute after:inset-0 group-hover:text-blue-700 focus-visible:outline-none focus-visible:after:rounded focus-visible:after:ring-2 focus-visible:after:ring-blue-600"
        >
          {skill.name}
        </a>
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
      <p className="truncate text-sm text-zinc-600" title={skill.description}>
        {skill.description}
      </p>
      <span className="mr-3 text-xs text-zinc-500 sm:mr-0">{skill.kind}</span>
      <span className="mr-3 font-mono text-xs text-zinc-500 tabular-nums sm:mr-0" title="Timeout">
        {skill.timeoutSeconds}s
      </span>
      <span className="sm:justify-self-end">
        <SkillClassBadge skillClass={skill.class} />
      </span>
    </li>
  );
});

/** A category section: heading (h2) with the skill count, then its rows. Off-screen sections skip painting. */
const CategorySection = memo(function CategorySection({ group }: { group: SkillGroup }) {
  const headingId = `category-${group.category}`;
  return (
    <section
      aria-labelledby={headingId}
      className="overflow-hidden rounded-lg border border-zinc-200 bg-white shadow-xs [contain-intrinsic-size:auto_400px] [content-visibility:auto]"
    >
      <div className="flex items-center gap-2 border-b border-zinc-200 bg-zinc-50/70 px-4 py-2">
        <h2 id={headingId} className="text-sm font-semibold text-zinc-900">
          {group.category}
        </h2>
        <span className="rounded-full bg-zinc-200/70 px-1.5 text-[11px] font-medium text-zinc-600 tabular-nums" aria-label={`${group.skills.length} skills`}>
          {group.skills.length}
        </span>
      </div>
      <ul className="divide-y divide-zinc-100">
        {group.skills.map((skill) => (
          <SkillRow key={skill.name} skill={skill} />
        ))}
      </ul>
    </section>
  );
});

/**
 * The skills grouped by category, one section per group. Cheap per row so thousands stay fluid: rows
 * hold plain links, and one delegated handler turns a plain left click into a client-side navigation.
 */
export function SkillList({ groups }: { groups: SkillGroup[] }) {
  const router = useRouter();

  function onClick(event: MouseEvent<HTMLDivElement>) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element).closest("a");
    const href = anchor?.getAttribute("href");
    if (!anchor || !href?.startsWith("/")) return;
    event.preventDefault();
    router.push(href);
  }

  return (
    <div className="space-y-4" onClick={onClick}>
      <div className={`hidden px-4 text-[11px] font-medium tracking-wide text-zinc-500 uppercase ${ROW_GRID}`} aria-hidden="true">
        <span>Name</span>
        <span>Description</span>
        <span>Kind</span>
        <span>Timeout</span>
        <span className="justify-self-end">Class</span>
      </div>
      {groups.map((group) => (
        <CategorySection key={group.category} group={group} />
      ))}
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
