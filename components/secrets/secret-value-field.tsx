"use client";

import { useId, useState, type RefObject } from "react";
import { Input, Textarea } from "@/components/ui/input";
import { useHydrated } from "@/lib/client/use-hydrated";
import { SECRET_VALUE_MIN_LENGTH } from "@/lib/validation/secret-requests";

/** The element a SecretValueField renders: a password input, or a masked textarea for a multi-line value. */
export type SecretValueElement = HTMLInputElement | HTMLTextAreaElement;

/**
 * Reads the value typed in the field behind `ref` and empties the field, so the value stays in the page
 * only until it is sent (DESIGN.md "Skill secrets": never readable again). Returns "" when there is no field.
 */
export function takeFieldValue(ref: RefObject<SecretValueElement | null>): string {
  const field = ref.current;
  if (!field) return "";
  const value = field.value;
  field.value = "";
  return value;
}

/**
 * A secret's value field. Uncontrolled on purpose: the value lives in the DOM field only, never in
 * React state, props or the URL, and the form reads and empties it with takeFieldValue when it sends.
 * It has no `name`, so a submission before the page's script runs cannot put it in a query string.
 * A password input by default (a browser strips line breaks from one); "Multi-line value" swaps in a
 * masked textarea for PEM keys and JSON documents (the typed text is dropped on the swap). No
 * autocomplete, spell check or autocorrect (some send the text away). `onPresenceChange` tells whether
 * the field holds anything (never what).
 */
export function SecretValueField({
  fieldRef,
  label,
  hint,
  required = false,
  autoFocus = false,
  onPresenceChange,
}: {
  fieldRef: RefObject<SecretValueElement | null>;
  label: string;
  hint?: string;
  required?: boolean;
  autoFocus?: boolean;
  onPresenceChange?: (present: boolean) => void;
}) {
  const id = useId();
  const hintId = useId();
  const [multiline, setMultiline] = useState(false);
  const hydrated = useHydrated();
  const common = {
    id,
    required,
    autoFocus,
    minLength: SECRET_VALUE_MIN_LENGTH,
    autoComplete: "off",
    autoCorrect: "off",
    autoCapitalize: "off",
    spellCheck: false,
    "aria-describedby": hintId,
    "data-1p-ignore": true,
    "data-lpignore": "true",
    onInput: (event: React.FormEvent<SecretValueElement>) => onPresenceChange?.(event.currentTarget.value !== ""),
  } as const;

  return (
    <div>
      <div className="mb-1 flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <label htmlFor={id} className="block text-sm font-medium text-zinc-800">
          {label}
        </label>
        <label className="flex items-center gap-1.5 text-xs text-zinc-600">
          <input
            type="checkbox"
            checked={multiline}
            disabled={!hydrated}
            onChange={(event) => {
              setMultiline(event.target.checked);
              onPresenceChange?.(false);
            }}
          />
          Multi-line value
        </label>
      </div>
      {multiline ? (
        // -webkit-text-security masks the text like a password field's where the browser supports it.
        <Textarea ref={fieldRef as RefObject<HTMLTextAreaElement | null>} rows={4} mono className="[-webkit-text-security:disc]" {...common} />
      ) : (
        <Input ref={fieldRef as RefObject<HTMLInputElement | null>} type="password" className="font-mono" {...common} />
      )}
      <p id={hintId} className="mt-1 text-xs text-zinc-500">
        {hint ?? `At least ${SECRET_VALUE_MIN_LENGTH} characters, up to 64 KiB, no space or line break at either end.`} It is sealed on the server and never shown again.
      </p>
    </div>
  );
}
