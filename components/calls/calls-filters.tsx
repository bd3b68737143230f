"use client";

import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/input";
import { CALL_STATUSES, type CallStatus } from "@/lib/types/call";

/** The history's filters: a skill name (empty = all) and a status (empty = all). */
export interface CallsFilterValue {
  skill: string;
  status: CallStatus | "";
}

/**
 * The filter bar of the calls history: a skill select (the registered skills, plus the current value
 * if it is not among them) and a status select of every status; "Clear" when any is set.
 */
export function CallsFilters({ value, skillNames, onChange }: { value: CallsFilterValue; skillNames: string[]; onChange: (value: CallsFilterValue) => void }) {
  const names = value.skill && !skillNames.includes(value.skill) ? [value.skill, ...skillNames] : skillNames;
  return (
    <div className="flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor="calls-filter-skill" className="mb-1 block text-xs font-medium text-zinc-600">
          Skill
        </label>
        <Select id="calls-filter-skill" value={value.skill} onChange={(event) => onChange({ ...value, skill: event.target.value })} className="w-56 font-mono text-[13px]">
          <option value="">All skills</option>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </Select>
      </div>
      <div>
        <label htmlFor="calls-filter-status" className="mb-1 block text-xs font-medium text-zinc-600">
          Status
        </label>
        <Select
          id="calls-filter-status"
          value={value.status}
          onChange={(event) => onChange({ ...value, status: event.target.value as CallStatus | "" })}
          className="w-48"
        >
          <option value="">All statuses</option>
          {CALL_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status.replace(/_/g, " ")}
            </option>
          ))}
        </Select>
      </div>
      {value.skill || value.status ? (
        <Button variant="ghost" onClick={() => onChange({ skill: "", status: "" })}>
          Clear filters
        </Button>
      ) : null}
    </div>
  );
}
