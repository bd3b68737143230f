"use client";

import { useDeferredValue, useId, useMemo, useState } from "react";
import { indexSkills } from "@/components/skills/filter-skills";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { useSkills } from "@/lib/client/use-skills";
import { pickableSkills, skillToAdd, unregisteredName } from "./pick-skills";

/** Most skills listed at once under the filter: the rest are reached by typing more of a name. */
const SHOWN_LIMIT = 100;

/**
 * Chooses the skills a secret is given to, among every registered skill (`GET /api/v1/skills`): the
 * chosen ones as removable chips, a filter box (Enter adds the exact name typed, else the first match;
 * it never submits the form) over a list of checkboxes showing at most SHOWN_LIMIT matches — those that
 * need `secretName` first, marked — so a thousand skills stay quick; a name no skill has can be added
 * too (a skill installed later). `selected` is the list, `onChange` gets the new one.
 */
export function SkillPicker({ secretName, selected, onChange }: { secretName: string; selected: string[]; onChange: (skills: string[]) => void }) {
  const skills = useSkills();
  const ids = { filter: useId(), hint: useId(), list: useId(), count: useId() };
  const [query, setQuery] = useState("");
  const deferredQuery = useDeferredValue(query);
  const index = useMemo(() => indexSkills(skills.data ?? []), [skills.data]);
  const { choices, total } = useMemo(() => pickableSkills(index, deferredQuery, secretName, SHOWN_LIMIT), [index, deferredQuery, secretName]);
  // Offered only when nothing matches (a name typed while matches are listed is most likely one of
  // them), and for any name while the skills cannot be loaded.
  const unregistered = skills.isError
    ? unregisteredName(query, selected, [])
    : skills.isSuccess && pickableSkills(index, query, secretName, 1).total === 0
      ? unregisteredName(query, selected, index)
      : null;
  const registered = useMemo(() => new Set(index.map((entry) => entry.skill.name)), [index]);

  const add = (name: string) => onChange(selected.includes(name) ? selected : [...selected, name]);
  const remove = (name: string) => onChange(selected.filter((skill) => skill !== name));

  return (
    <fieldset aria-describedby={ids.hint} data-testid="skill-picker">
      <legend className="text-sm font-medium text-zinc-800">Skills given the secret</legend>
      <p id={ids.hint} className="mt-0.5 text-xs text-zinc-500">
        Only these skills&apos; processes receive it, as the environment variable of its name.
      </p>
      <ul className="mt-2 flex min-h-7 flex-wrap gap-1.5" aria-label="Chosen skills">
        {selected.length === 0 ? <li className="text-xs text-zinc-500 italic">none yet: the secret reaches no skill</li> : null}
        {selected.map((name) => (
          <li key={name} className="inline-flex max-w-full items-center gap-1 rounded bg-zinc-100 py-0.5 pr-0.5 pl-2 font-mono text-xs text-zinc-800 ring-1 ring-zinc-300/70 ring-inset" data-skill={name}>
            <span className="min-w-0 truncate">{name}</span>
            {skills.isSuccess && !registered.has(name) ? <span className="font-sans text-[11px] text-amber-700">not registered</span> : null}
            <button type="button" className="rounded px-1 text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-600" aria-label={`Remove ${name}`} onClick={() => remove(name)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <label htmlFor={ids.filter} className="mt-3 block text-xs font-medium text-zinc-700">
        Find a skill
      </label>
      <Input
        id={ids.filter}
        type="search"
        autoComplete="off"
        spellCheck={false}
        className="mt-1"
        placeholder={skills.isSuccess ? `Filter ${skills.data.length.toLocaleString("en-US")} skills by name, description or category` : "Filter skills"}
        aria-controls={ids.list}
        aria-describedby={ids.count}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            if (query.trim() === "") return;
            const name = skillToAdd(query, pickableSkills(index, query, secretName, SHOWN_LIMIT).choices, selected, index) ?? unregistered;
            if (name) {
              add(name);
              setQuery("");
            }
          } else if (event.key === "Escape" && query !== "") {
            event.preventDefault();
            setQuery("");
          }
        }}
      />
      {skills.isPending ? (
        <SkeletonRows rows={4} className="mt-2" />
      ) : skills.isError ? (
        <LoadFailed title="Could not load the skills" error={skills.error} onRetry={() => void skills.refetch()} className="mt-2">
          Names typed above can still be added.
        </LoadFailed>
      ) : (
        <div id={ids.list} role="group" aria-label="Matching skills" className="mt-2 max-h-56 overflow-y-auto rounded-md border border-zinc-200 bg-white">
          {choices.length === 0 ? <p className="px-3 py-3 text-sm text-zinc-500">No skill matches “{query}”.</p> : null}
          <ul className="divide-y divide-zinc-100">
            {choices.map((skill) => {
              const needs = secretName !== "" && skill.secretsNeeded.includes(secretName);
              return (
                <li key={skill.name}>
                  <label className="flex cursor-pointer flex-wrap items-center gap-x-2 gap-y-0.5 px-3 py-1.5 text-sm hover:bg-zinc-50" data-testid="skill-choice" data-skill={skill.name}>
                    <input type="checkbox" checked={selected.includes(skill.name)} onChange={(event) => (event.target.checked ? add(skill.name) : remove(skill.name))} />
                    <span className="min-w-0 font-mono text-[12.5px] break-all text-zinc-900">{skill.name}</span>
                    <span className="text-xs text-zinc-500">{skill.category}</span>
                    {needs ? <Badge tone="amber">needs {secretName}</Badge> : null}
                  </label>
                </li>
              );
            })}
          </ul>
        </div>
      )}
      <p id={ids.count} className="mt-1 text-xs text-zinc-500" aria-live="polite">
        {skills.isSuccess
          ? total > choices.length
            ? `${choices.length} of ${total.toLocaleString("en-US")} matching skills shown: type more of a name to find the others. Enter adds the first match.`
            : `${total.toLocaleString("en-US")} matching skill${total === 1 ? "" : "s"}. Enter adds the first match.`
          : null}
      </p>
      {unregistered ? (
        <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-600" data-testid="unregistered-skill">
          <span className="min-w-0 break-all">
            No skill named <code className="font-mono text-zinc-800">{unregistered}</code> is registered now.
          </span>
          <Button
            size="sm"
            aria-label={`Add ${unregistered} anyway`}
            onClick={() => {
              add(unregistered);
              setQuery("");
            }}
          >
            Add anyway
          </Button>
        </div>
      ) : null}
    </fieldset>
  );
}
