"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/class-names";
import type { WorkerInfo, WorkerSkillReport } from "@/lib/types/worker";
import { ShortDigest } from "./short-digest";

/** Rows shown before "Show all": a worker may report tens of thousands of skills. */
const FIRST_ROWS = 100;

/** Drifted, then unavailable, then the rest; by name within each group. */
function ordered(skills: WorkerSkillReport[], drifted: Set<string>): WorkerSkillReport[] {
  const rank = (skill: WorkerSkillReport) => (drifted.has(skill.name) ? 0 : skill.available ? 2 : 1);
  return [...skills].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

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

/**
 * The skills a worker holds: a one-line count (held, unavailable, drifted) and a button that expands
 * the list — each skill linked to its page, with its digest shortened to 12 hex characters, drifted
 * ones marked, unavailable ones with their reason (DESIGN.md "Workers and the sandbox": the Workers
 * page lists skills and digests). Long lists show the first 100 until "Show all".
 */
export function WorkerSkills({ worker }: { worker: WorkerInfo }) {
  const [open, setOpen] = useState(false);
  const [all, setAll] = useState(false);
  const listId = useId();
  const drifted = new Set(worker.drifted);
  const unavailable = worker.skills.filter((skill) => !skill.available).length;
  const count = worker.skills.length;
  const rows = open ? ordered(worker.skills, drifted) : [];
  const shown = all ? rows : rows.slice(0, FIRST_ROWS);

  return (
    <div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <p className="text-sm text-zinc-800" data-testid="worker-skill-count">
          {count} {count === 1 ? "skill" : "skills"} held
          {unavailable > 0 ? <span className="text-red-700"> · {unavailable} unavailable</span> : null}
          {drifted.size > 0 ? <span className="text-amber-800"> · {drifted.size} drifted</span> : null}
        </p>
        {count > 0 ? (
          <Button size="sm" variant="ghost" aria-expanded={open} aria-controls={listId} onClick={() => setOpen((value) => !value)}>
            {open ? "Hide skills" : "Show skills"}
          </Button>
        ) : null}
      </div>
      <div id={listId} hidden={!open} className="mt-2 overflow-hidden rounded-md border border-zinc-200">
        {open ? (
          <>
            <ul className="max-h-96 divide-y divide-zinc-100 overflow-y-auto" aria-label={`Skills held by ${worker.name}`}>
              {shown.map((skill) => (
                <SkillRow key={skill.name} skill={skill} drifted={drifted.has(skill.name)} />
              ))}
            </ul>
            {shown.length < rows.length ? (
              <div className="border-t border-zinc-200 bg-zinc-50 px-3 py-1.5">
                <Button size="sm" variant="ghost" onClick={() => setAll(true)}>
                  Show all {rows.length}
                </Button>
              </div>
            ) : null}
          </>
        ) : null}
      </div>
    </div>
  );
}
