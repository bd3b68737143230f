"use client";

import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { AUDIT_FILTER_NAMES, type AuditFilters } from "@/lib/types/audit";
import { AUDIT_ACTION_FILTER_PATTERN } from "@/lib/validation/audit-requests";

/** Each filter's field: its label and placeholder. */
const FIELDS: Record<keyof AuditFilters, { label: string; placeholder: string }> = {
  actor: { label: "Person", placeholder: "email, token:…, system" },
  skill: { label: "Skill", placeholder: "all skills" },
  action: { label: "Action", placeholder: "approval.signed or approval.*" },
  callId: { label: "Call ID", placeholder: "all calls" },
};

const ACTION = new RegExp(AUDIT_ACTION_FILTER_PATTERN);

/** `filters` with every field present ("" for none), for the form's state. */
function draftOf(filters: AuditFilters): Record<keyof AuditFilters, string> {
  return { actor: filters.actor ?? "", skill: filters.skill ?? "", action: filters.action ?? "", callId: filters.callId ?? "" };
}

/**
 * The filters of the audit page (issue 14 point 6): person (the actor, exactly), skill, action (exact,
 * or a prefix ending in `.*`) and call ID, applied together on Enter or "Filter"; "Clear" while any is
 * set. An action that cannot match (the server would refuse it) is marked on the field instead of
 * being sent. `value` is the applied filters (from the page's URL); the fields follow it when it
 * changes elsewhere (a row's funnel button, the browser's Back).
 */
export function AuditFilter({ value, onChange }: { value: AuditFilters; onChange: (filters: AuditFilters) => void }) {
  const [draft, setDraft] = useState(() => draftOf(value));
  const [applied, setApplied] = useState(value);
  const [actionError, setActionError] = useState<string | null>(null);
  if (AUDIT_FILTER_NAMES.some((name) => applied[name] !== value[name])) {
    setApplied(value);
    setDraft(draftOf(value));
    setActionError(null);
  }
  const anySet = AUDIT_FILTER_NAMES.some((name) => value[name] !== undefined);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const action = draft.action.trim();
    if (action !== "" && !ACTION.test(action)) {
      setActionError("An action is lower-case words joined by dots (approval.signed), or a prefix ending in .* (approval.*).");
      return;
    }
    setActionError(null);
    const next: AuditFilters = {};
    for (const name of AUDIT_FILTER_NAMES) {
      const text = draft[name].trim();
      if (text !== "") next[name] = text;
    }
    onChange(next);
  }

  return (
    <form onSubmit={submit} role="search" aria-label="Filter the audit trail" className="grid gap-3 sm:grid-cols-2 xl:grid-cols-[repeat(4,minmax(0,1fr))_auto]">
      {AUDIT_FILTER_NAMES.map((name) => (
        <div key={name} className="flex min-w-0 flex-col gap-1">
          <label htmlFor={`audit-filter-${name}`} className="text-xs font-medium text-zinc-700">
            {FIELDS[name].label}
          </label>
          <Input
            id={`audit-filter-${name}`}
            name={name}
            className={name === "actor" ? "w-full" : "w-full font-mono"}
            placeholder={FIELDS[name].placeholder}
            autoComplete="off"
            spellCheck={false}
            invalid={name === "action" && actionError !== null}
            aria-describedby={name === "action" && actionError ? "audit-filter-action-error" : undefined}
            value={draft[name]}
            onChange={(event) => setDraft((current) => ({ ...current, [name]: event.target.value }))}
          />
          {name === "action" && actionError ? (
            <p id="audit-filter-action-error" className="text-xs text-red-700">
              {actionError}
            </p>
          ) : null}
        </div>
      ))}
      <div className="flex items-end gap-2">
        <Button type="submit" variant="primary">
          Filter
        </Button>
        {anySet ? (
          <Button variant="ghost" onClick={() => onChange({})}>
            Clear
          </Button>
        ) : null}
      </div>
    </form>
  );
}
