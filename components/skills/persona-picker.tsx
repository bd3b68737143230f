"use client";

import { useId } from "react";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/input";
import { usePersonas } from "@/lib/client/use-personas";
import { DEFAULT_PERSONA_NAME, type Persona } from "@/lib/types/persona";

/**
 * The run panel's "Run as persona" select (issue 4 point 2): every persona (`GET /api/v1/personas`)
 * with its permission mode; `value` is the chosen persona's name, `onChange` gets the new name. While
 * loading it shows only `value`, disabled; a failed load says so with a Retry.
 */
export function PersonaPicker({ value, onChange }: { value: string; onChange: (name: string) => void }) {
  const id = useId();
  const personas = usePersonas();
  const hintId = `${id}-hint`;

  return (
    <div className="flex flex-wrap items-end gap-x-3 gap-y-1">
      <div className="min-w-56">
        <label htmlFor={id} className="block text-xs font-medium text-zinc-700">
          Run as persona
        </label>
        <Select
          id={id}
          className="mt-1"
          value={value}
          aria-describedby={hintId}
          disabled={!personas.data}
          onChange={(event) => onChange(event.target.value)}
          data-testid="persona-select"
        >
          {personas.data ? (
            personas.data.map((persona) => (
              <option key={persona.name} value={persona.name}>
                {persona.name} — {persona.permission_mode}
              </option>
            ))
          ) : (
            <option value={value}>{value === DEFAULT_PERSONA_NAME ? "default" : value}</option>
          )}
        </Select>
      </div>
      <p id={hintId} className="pb-1.5 text-xs text-zinc-500">
        {personas.isPending ? (
          "Loading personas…"
        ) : personas.isError ? (
          <span className="inline-flex items-center gap-2 text-red-700" role="alert">
            Could not load the personas: {personas.error.message}
            <Button size="sm" onClick={() => void personas.refetch()}>
              Retry
            </Button>
          </span>
        ) : (
          "The persona decides what the policy allows; any operator may use any persona."
        )}
      </p>
    </div>
  );
}

/** The persona named `name` in `personas`, or undefined when the list is not loaded or has none by that name. */
export function findPersona(personas: readonly Persona[] | undefined, name: string): Persona | undefined {
  return personas?.find((persona) => persona.name === name);
}
