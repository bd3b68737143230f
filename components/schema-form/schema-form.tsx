"use client";

import Form from "@rjsf/core";
import type { ErrorSchema, Experimental_DefaultFormStateBehavior, RJSFSchema } from "@rjsf/utils";
import { useState } from "react";
import { humanizeFormErrors } from "./ajv-errors";
import { FormErrorBoundary, FormFallback } from "./form-fallback";
import { unrenderableReason } from "./form-schema";
import { schemaFormTemplates, schemaFormWidgets } from "./theme";
import { argsValidator } from "./validator";

/** Args of a skill call: the form's data. */
export type Args = Record<string, unknown>;

/**
 * The form never fills defaults in by itself: the page starts from the schema's defaults, and a field
 * the operator clears stays absent instead of getting its default back.
 */
const DEFAULTS_BEHAVIOR: Experimental_DefaultFormStateBehavior = {
  emptyObjectFields: "skipDefaults",
  mergeDefaultsIntoFormData: "useFormDataIfPresent",
  // A oneOf of consts is a choice: its first option is not a default.
  constAsDefaults: "skipOneOf",
};

/**
 * The args form generated from a skill's JSON Schema (rjsf + ajv 8 with formats), controlled by
 * `value`/`onChange`. Submitting it (the page's Run button points at `formId`) validates first:
 * valid data goes to `onValidSubmit`; otherwise the messages appear on the fields, the first invalid
 * field takes focus, and from then on validation is live. `extraErrors` shows server-side errors;
 * both kinds are worded by lib/client/validation-messages. A schema rjsf cannot draw (see
 * toFormSchema, or any render error) is replaced by the Raw JSON editor with the reason.
 */
export function SchemaForm({
  formId,
  schema,
  value,
  onChange,
  onValidSubmit,
  extraErrors,
  disabled = false,
}: {
  formId: string;
  schema: RJSFSchema;
  value: Args;
  onChange: (value: Args) => void;
  onValidSubmit: (value: Args) => void;
  extraErrors?: ErrorSchema;
  disabled?: boolean;
}) {
  const [attempted, setAttempted] = useState(false);
  const fallback = (reason: string) => <FormFallback formId={formId} reason={reason} value={value} onChange={onChange} onSubmit={onValidSubmit} />;
  const known = unrenderableReason(schema);
  if (known) return fallback(known);
  return (
    <FormErrorBoundary resetKey={schema} fallback={fallback}>
      <Form<Args>
        id={formId}
        schema={schema}
        validator={argsValidator}
        templates={schemaFormTemplates}
        widgets={schemaFormWidgets}
        formData={value}
        onChange={(event) => onChange(event.formData ?? {})}
        onSubmit={(event) => {
          setAttempted(true);
          onValidSubmit(event.formData ?? {});
        }}
        onError={() => setAttempted(true)}
        liveValidate={attempted ? "onChange" : undefined}
        extraErrors={extraErrors}
        extraErrorsBlockSubmit={false}
        transformErrors={humanizeFormErrors}
        showErrorList={false}
        noHtml5Validate
        focusOnFirstError
        disabled={disabled}
        experimental_defaultFormStateBehavior={DEFAULTS_BEHAVIOR}
        aria-label="Arguments"
      />
    </FormErrorBoundary>
  );
}
