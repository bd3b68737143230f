"use client";

import { Textarea } from "@/components/ui/input";
import type { Ref } from "react";
import type { ParsedArgs } from "./parse-args-json";

/** The error part of a failed ParsedArgs. */
export type ArgsParseError = Extract<ParsedArgs, { ok: false }>;

/**
 * What the line under the editor says: how the text relates to the form (`hasForm`: whether one could
 * be built from the skill's schema), or, while the text is not a JSON object, the parser's reason with
 * its line and column and what happens until it is fixed.
 */
export function rawJsonStatus(error: ArgsParseError | null, hasForm: boolean): string {
  if (!error) return hasForm ? "Edits here update the form, and the form's edits show here." : "The form could not be built from this skill's schema, so the args are edited as JSON here.";
  const reason = error.kind === "syntax" ? `Invalid JSON at line ${error.line}, column ${error.column}: ${error.message}` : error.message;
  return `${reason}. ${hasForm ? "The form keeps the last valid args until this is fixed." : "Nothing is sent until this is fixed."}`;
}

/**
 * The Raw JSON view of the args: a monospace textarea holding the args object, and a status line
 * (rawJsonStatus): kept in step with the form, or, when `hasForm` is false (the schema could not be
 * drawn as a form), the only editor of the args; while the text is not a JSON object, the parser's
 * reason with its line and column (the text is kept as typed; nothing is dropped). `formId` makes
 * Enter-less submission go through the page's Run button.
 */
export function RawJsonEditor({
  formId,
  text,
  error,
  hasForm,
  onTextChange,
  onSubmit,
  textareaRef,
}: {
  formId: string;
  text: string;
  error: ArgsParseError | null;
  hasForm: boolean;
  onTextChange: (text: string) => void;
  onSubmit: () => void;
  textareaRef?: Ref<HTMLTextAreaElement>;
}) {
  return (
    <form
      id={formId}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
      className="space-y-1.5"
    >
      <label htmlFor={`${formId}-raw`} className="block text-[13px] font-medium text-zinc-800">
        Args (JSON object)
      </label>
      <Textarea
        ref={textareaRef}
        id={`${formId}-raw`}
        mono
        spellCheck={false}
        autoComplete="off"
        rows={Math.min(24, Math.max(8, text.split("\n").length + 1))}
        value={text}
        invalid={error !== null}
        aria-describedby={`${formId}-raw-status`}
        onChange={(event) => onTextChange(event.target.value)}
      />
      <p id={`${formId}-raw-status`} role={error ? "alert" : undefined} className={error ? "text-xs text-red-700" : "text-xs text-zinc-500"}>
        {rawJsonStatus(error, hasForm)}
      </p>
    </form>
  );
}
