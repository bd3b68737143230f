"use client";

import Link from "next/link";
import { type ReactNode, useId, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { cx } from "@/components/ui/class-names";
import { LoadFailed } from "@/components/ui/load-failed";
import { useDebouncedValue } from "@/lib/client/use-debounced-value";
import { useWorkerSkills, WORKER_SKILLS_PAGE_SIZE } from "@/lib/client/use-workers";
import type { WorkerInfo, WorkerSkillReport } from "@/lib/types/worker";
import { ShortDigest } from "./short-digest";

function SkillRow({ skill, drifted }: { skill: WorkerSkillReport; drifted: boolean }) {
  return (
    <li
      className={cx("flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-1.5", drifted && "bg-amber-50/70")}
      data-testid="worker-skill"
      data-skill={skill.name}
      data-drifted={drifted || undefined}
    >
      <Link href={`/skills/${encodeURIComponent(skill.name)}`} className="min-w-0 font-mono text-[12.5px] break-all text-zinc-900 hover:text-blue-700 hover:underline">
        {skill.name}
      </Link>
      <ShortDigest digest={skill.digest} emptyLabel="its copy could not be hashed" />
      {drifted ? <Badge tone="amber">drifted</Badge> : null}
      {skill.available ? null : (
        <span className="basis-full text-xs break-words text-red-700">
          unavailable here: {skill.reason ?? "no reason given"}
        </span>
      )}
    </li>
  );
}

/** How long the name filter waits for typing to pause before asking the console, in ms. */
const FILTER_DEBOUNCE_MS = 250;

/** Every skill of one worker, by name, a page at a time (`GET /api/v1/workers/{id}/skills`), filtered by a part of the name. */
function AllSkills({ worker, label }: { worker: WorkerInfo; label: string }) {
  const [filter, setFilter] = useState("");
  const q = useDebouncedValue(filter.trim(), FILTER_DEBOUNCE_MS);
  const pages = useWorkerSkills(worker.id, q, true);
  const skills = pages.data?.pages.flatMap((page) => page.skills) ?? [];
  const filterId = useId();
  let body: ReactNode;
  if (pages.isPending) body = <p className="px-3 py-2 text-sm text-zinc-500">Loading the skills…</p>;
  else if (pages.isError && skills.length === 0) {
    body = (
      <LoadFailed title="Could not load the skills" error={pages.error} onRetry={() => void pages.refetch()} className="m-3" />
    );
  } else if (skills.length === 0) body = <p className="px-3 py-2 text-sm text-zinc-600">No skill of {worker.name} has “{q}” in its name.</p>;
  else {
    body = (
      <ul className="max-h-96 divide-y divide-zinc-100 overflow-y-auto" aria-label={label}>
        {skills.map((skill) => (
          <SkillRow key={skill.name} skill={skill} drifted={skill.drifted} />
        ))}
      </ul>
    );
  }
  return (
    <>
      <div className="border-b border-zinc-200 bg-zinc-50 px-3 py-2">
        <label htmlFor={filterId} className="sr-only">
          Filter the skills of {worker.name} by name
        </label>
        <Input id={filterId} type="search" value={filter} onChange={(event) => setFilter(event.target.value)} placeholder="Filter by name" maxLength={200} className="w-full sm:w-72" />
      </div>
      {body}
      <div className="flex flex-wrap items-center justify-between gap-2 border-t border-zinc-200 bg-zinc-50 px-3 py-1.5 text-xs text-zinc-600">
        <span aria-live="polite" data-testid="worker-skills-shown">
          {q === "" ? `${skills.length.toLocaleString()} of ${worker.skillCounts.held.toLocaleString()} shown, by name` : `${skills.length.toLocaleString()}${pages.hasNextPage ? "+" : ""} with “${q}” in the name, by name`}
        </span>
        {pages.hasNextPage ? (
          <Button size="sm" variant="ghost" pending={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
            Load {WORKER_SKILLS_PAGE_SIZE} more
          </Button>
        ) : null}
      </div>
      {pages.isFetchNextPageError ? (
        <LoadFailed title="Could not load more skills" error={pages.error} onRetry={() => void pages.fetchNextPage()} retrying={pages.isFetchingNextPage} className="m-3" />
      ) : null}
    </>
  );
}

/**
 * The skills a worker holds: a one-line count (held, unavailable, drifted) and a button that expands
 * the list — each skill linked to its page, with its digest shortened to 12 hex characters, drifted
 * ones marked, unavailable ones with their reason (DESIGN.md "Workers and the sandbox": the Workers
 * page lists skills and digests). The list first shows the skills `GET /api/v1/workers` carries
 * (drifted, then unavailable, then the first by name); "List all" pages through every one by name,
 * with a filter on a part of the name.
 */
export function WorkerSkills({ worker }: { worker: WorkerInfo }) {
  const [open, setOpen] = useState(false);
  const [all, setAll] = useState(false);
  const listId = useId();
  const drifted = new Set(worker.drifted);
  const { held, unavailable, drifted: driftedCount } = worker.skillCounts;
  const label = `Skills held by ${worker.name}`;

  return (
    <div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <p className="text-sm text-zinc-800" data-testid="worker-skill-count">
          {held.toLocaleString()} {held === 1 ? "skill" : "skills"} held
          {unavailable > 0 ? <span className="text-red-700"> · {unavailable.toLocaleString()} unavailable</span> : null}
          {driftedCount > 0 ? <span className="text-amber-800"> · {driftedCount.toLocaleString()} drifted</span> : null}
        </p>
        {held > 0 ? (
          <Button size="sm" variant="ghost" aria-expanded={open} aria-controls={listId} onClick={() => setOpen((value) => !value)}>
            {open ? "Hide skills" : "Show skills"}
          </Button>
        ) : null}
      </div>
      <div id={listId} hidden={!open} className="mt-2 overflow-hidden rounded-md border border-zinc-200">
        {open && all ? <AllSkills worker={worker} label={label} /> : null}
        {open && !all ? (
          <>
            <ul className="max-h-96 divide-y divide-zinc-100 overflow-y-auto" aria-label={label}>
              {worker.skills.map((skill) => (
                <SkillRow key={skill.name} skill={skill} drifted={drifted.has(skill.name)} />
              ))}
            </ul>
            {worker.skills.length < held ? (
              <div className="flex flex-wrap items-center justify-between gap-2 border-t border-zinc-200 bg-zinc-50 px-3 py-1.5 text-xs text-zinc-600">
                <span>
                  {worker.skills.length.toLocaleString()} of {held.toLocaleString()} shown: drifted and unavailable first
                </span>
                <Button size="sm" variant="ghost" onClick={() => setAll(true)}>
                  List all {held.toLocaleString()} by name
                </Button>
              </div>
            ) : null}
          </>
        ) : null}
      </div>
    </div>
  );
}
