"use client";

import { useEffect, useRef, useState, type ChangeEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/input";
import { useDebouncedValue } from "@/lib/client/use-debounced-value";
import { CALL_STATUSES, type CallStatus } from "@/lib/types/call";

/** The history's filters: a skill name (empty = all) and a status (empty = all). */
export interface CallsFilterValue {
  skill: string;
  status: CallStatus | "";
}

/** A skill name the Skill box suggests; `registered` false for skills only old calls know. */
export interface SkillSuggestion {
  name: string;
  registered: boolean;
}

/** How long typing in the Skill box rests before the filter applies. */
const SKILL_TYPING_DEBOUNCE_MS = 350;

/** True when an input event comes from picking a datalist suggestion rather than typing. */
function isSuggestionPick(event: ChangeEvent<HTMLInputElement>): boolean {
  const native = event.nativeEvent;
  return !(native instanceof InputEvent) || native.inputType === "insertReplacementText";
}

/**
 * The filter bar of the calls history. Skill is a free-text box with suggestions (`suggestions`:
 * registered skills and the skills of calls seen, so calls of removed skills stay reachable); it
 * applies on a pick, on Enter, or once typing rests. Status is a select of every status. "Clear" when
 * any is set. The value lives in the caller (the URL); a change there (Clear, Back) refills the box.
 */
export function CallsFilters({ value, suggestions, onChange }: { value: CallsFilterValue; suggestions: SkillSuggestion[]; onChange: (value: CallsFilterValue) => void }) {
  const [skillText, setSkillText] = useState(value.skill);
  const committed = useRef(value.skill);
  const typed = useDebouncedValue(skillText.trim(), SKILL_TYPING_DEBOUNCE_MS);

  function commitSkill(text: string) {
    const skill = text.trim();
    committed.current = skill;
    if (skill !== value.skill) onChange({ ...value, skill });
  }

  // The URL changed without us (Clear, Back/Forward): show its skill in the box.
  useEffect(() => {
    if (value.skill === committed.current) return;
    committed.current = value.skill;
    setSkillText(value.skill);
  }, [value.skill]);

  // Only a settled change of the text applies the filter, so `typed` alone drives this effect.
  useEffect(() => {
    if (typed !== committed.current) commitSkill(typed);
  }, [typed]);

  return (
    <div className="flex flex-wrap items-end gap-3">
      <form
        className="w-64"
        onSubmit={(event) => {
          event.preventDefault();
          commitSkill(skillText);
        }}
      >
        <label htmlFor="calls-filter-skill" className="mb-1 block text-xs font-medium text-zinc-600">
          Skill
        </label>
        <Input
          id="calls-filter-skill"
          type="search"
          list="calls-filter-skill-options"
          autoComplete="off"
          spellCheck={false}
          placeholder="All skills"
          value={skillText}
          onChange={(event) => {
            setSkillText(event.target.value);
            if (isSuggestionPick(event)) commitSkill(event.target.value);
          }}
          onBlur={() => commitSkill(skillText)}
          className="font-mono text-[13px] placeholder:font-sans"
        />
        <datalist id="calls-filter-skill-options">
          {suggestions.map((suggestion) => (
            <option key={suggestion.name} value={suggestion.name} label={suggestion.registered ? undefined : "no longer registered"} />
          ))}
        </datalist>
      </form>
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
