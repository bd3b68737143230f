"use client";

import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";

/**
 * The call-id filter of the audit page: a text field applied on Enter or "Filter", and "Clear" while a
 * filter is set. `value` is the applied filter ("" for none); the field follows it when it changes.
 */
export function AuditFilter({ value, onChange }: { value: string; onChange: (callId: string) => void }) {
  const [draft, setDraft] = useState(value);
  const [applied, setApplied] = useState(value);
  if (applied !== value) {
    // The filter changed elsewhere (a row's filter button, the URL): show it in the field.
    setApplied(value);
    setDraft(value);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onChange(draft.trim());
  }

  return (
    <form onSubmit={submit} role="search" aria-label="Filter the audit trail" className="flex flex-wrap items-center gap-2">
      <label htmlFor="audit-call-id" className="text-sm font-medium text-zinc-800">
        Call ID
      </label>
      <Input id="audit-call-id" name="callId" className="w-80 font-mono" placeholder="all calls" autoComplete="off" value={draft} onChange={(event) => setDraft(event.target.value)} />
      <Button type="submit" size="md">
        Filter
      </Button>
      {value ? (
        <Button variant="ghost" onClick={() => onChange("")}>
          Clear
        </Button>
      ) : null}
    </form>
  );
}
