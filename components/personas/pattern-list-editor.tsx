"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";

/**
 * Edits a list of short strings (a persona's `skills.allow`, `skills.deny` or `categories`): each
 * entry is a removable chip; the field below adds what is typed (commas or spaces separate several;
 * Enter adds instead of submitting the form). `values` is the list, `onChange` gets the new one
 * (duplicates are dropped). `invalid` marks the field when the server refused this list.
 */
export function PatternListEditor({
  label,
  hint,
  values,
  onChange,
  placeholder,
  invalid = false,
  disabled = false,
  testId,
}: {
  label: string;
  hint?: React.ReactNode;
  values: string[];
  onChange: (values: string[]) => void;
  placeholder?: string;
  invalid?: boolean;
  disabled?: boolean;
  testId?: string;
}) {
  const id = useId();
  const [text, setText] = useState("");

  function add() {
    const entries = text.split(/[\s,]+/).filter((entry) => entry !== "");
    if (entries.length === 0) return;
    onChange([...new Set([...values, ...entries])]);
    setText("");
  }

  return (
    <div data-testid={testId}>
      <label htmlFor={id} className="block text-xs font-medium text-zinc-700">
        {label}
      </label>
      {hint ? <p className="mt-0.5 text-xs text-zinc-500">{hint}</p> : null}
      <ul className="mt-1.5 flex min-h-7 flex-wrap gap-1.5" aria-label={`${label} entries`}>
        {values.length === 0 ? <li className="text-xs text-zinc-400 italic">none</li> : null}
        {values.map((value) => (
          <li key={value} className="inline-flex items-center gap-1 rounded bg-zinc-100 py-0.5 pr-0.5 pl-2 font-mono text-xs text-zinc-800 ring-1 ring-zinc-300/70 ring-inset">
            {value}
            <button
              type="button"
              className="rounded px-1 text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 disabled:cursor-not-allowed"
              aria-label={`Remove ${value} from ${label}`}
              disabled={disabled}
              onClick={() => onChange(values.filter((entry) => entry !== value))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <div className="mt-1.5 flex gap-2">
        <Input
          id={id}
          value={text}
          invalid={invalid}
          disabled={disabled}
          placeholder={placeholder}
          className="font-mono text-xs"
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              add();
            }
          }}
          onBlur={add}
        />
        <Button size="sm" className="h-8" onClick={add} disabled={disabled || text.trim() === ""}>
          Add
        </Button>
      </div>
    </div>
  );
}
