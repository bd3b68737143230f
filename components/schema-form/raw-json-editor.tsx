"use client";

import { Textarea } from "@/components/ui/input";
import type { Ref } from "react";
import type { ParsedArgs } from "./parse-args-json";

/** The error part of a failed ParsedArgs. */
export type ArgsParseError = Extract<ParsedArgs, { ok: false }>;

/**
 * The Raw JSON view of the args: a monospace textarea holding the args object, and, while the text is
 * not a JSON object, the parser's reason with its line and column (the text is kept as typed; nothing
 * is dropped). `formId` makes Enter-less submission go through the page's Run button.
 */
export function RawJsonEditor({
  formId,
  text,
  error,
  onTextChange,
  onSubmit,
  textareaRef,
}: {
  formId: string;
  text: string;
  error: ArgsParseError | null;
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
        {error
          ? `${error.kind === "syntax" ? `Invalid JSON at line ${error.line}, column ${error.column}: ${error.message}` : error.message}. The form keeps the last valid args until this is fixed.`
          : "Edits here update the form, and the form's edits show here."}
      </p>
    </form>
  );
}
