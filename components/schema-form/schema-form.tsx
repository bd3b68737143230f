"use client";

import Form from "@rjsf/core";
import type { ErrorSchema, Experimental_DefaultFormStateBehavior, RJSFSchema } from "@rjsf/utils";
import { useMemo, useState } from "react";
import { humanizeFormErrors } from "./ajv-errors";
import { ErrorVisibilityProvider } from "./error-visibility";
import { FormErrorBoundary, FormFallback } from "./form-fallback";
import { FORM_NAME } from "./field-template";
import { unrenderableReason } from "./form-schema";
import { omitReadOnly } from "./read-only-args";
import { schemaFormFields, schemaFormTemplates, schemaFormWidgets } from "./theme";
import { UnionPicks } from "./union-picks";
import { argsValidator, createArgsValidator } from "./validator";

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
 * `value`/`onChange`. A field shows its errors once it loses focus after the person changed it, next to
 * it (a union's under its picker), and they follow each edit; errors come from the branch of each anyOf/oneOf the person sees
 * (createArgsValidator). Submitting it (the page's Run button points at `formId`) validates first:
 * valid data, without its read-only fields (omitReadOnly), goes to `onValidSubmit`; otherwise every
 * field's messages appear and the first invalid field takes focus. `extraErrors` shows server-side errors;
 * both kinds are worded by lib/client/validation-messages. A schema rjsf cannot draw (see
 * toFormSchema, or any render error) is replaced by the Raw JSON editor with the reason, and
 * `onFallback(reason)` tells the page that these args have no form.
 */
export function SchemaForm({
  formId,
  schema,
  value,
  onChange,
  onValidSubmit,
  extraErrors,
  disabled = false,
  onFallback,
}: {
  formId: string;
  schema: RJSFSchema;
  value: Args;
  onChange: (value: Args) => void;
  onValidSubmit: (value: Args) => void;
  extraErrors?: ErrorSchema;
  disabled?: boolean;
  onFallback?: (reason: string) => void;
}) {
  const [attempted, setAttempted] = useState(false);
  const [touched, setTouched] = useState<ReadonlySet<string>>(() => new Set());
  const [picks] = useState(() => new Map<string, number>());
  const [focusedValues] = useState(() => new Map<string, string>());
  const validator = useMemo(() => createArgsValidator(picks), [picks]);
  const visibility = useMemo(() => ({ attempted, touched }), [attempted, touched]);
  const fallback = (reason: string) => <FormFallback formId={formId} reason={reason} value={value} onChange={onChange} onSubmit={onValidSubmit} onShown={onFallback} />;
  const known = unrenderableReason(schema);
  if (known) return fallback(known);
  return (
    <FormErrorBoundary resetKey={schema} fallback={fallback}>
      <UnionPicks.Provider value={picks}>
      <ErrorVisibilityProvider value={visibility}>
      <Form<Args>
        id={formId}
        schema={schema}
        validator={validator}
        templates={schemaFormTemplates}
        fields={schemaFormFields}
        widgets={schemaFormWidgets}
        formData={value}
        onChange={(event) => onChange(event.formData ?? {})}
        onSubmit={(event) => {
          setAttempted(true);
          onValidSubmit(omitReadOnly(argsValidator, schema, event.formData ?? {}, picks));
        }}
        onError={() => setAttempted(true)}
        onFocus={(id, data) => focusedValues.set(id, JSON.stringify(data) ?? "")}
        onBlur={(id, data) => {
          // Only a field the person changed counts: leaving a field that Add item focused, or tabbing
          // through one, shows nothing (and moves nothing under the pointer) until Run.
          if ((JSON.stringify(data) ?? "") === focusedValues.get(id)) return;
          setTouched((before) => (before.has(id) ? before : new Set(before).add(id)));
        }}
        // Every change is validated; which errors show is the templates' call (errorsShownFor).
        liveValidate="onChange"
        extraErrors={extraErrors}
        extraErrorsBlockSubmit={false}
        transformErrors={humanizeFormErrors}
        showErrorList={false}
        noHtml5Validate
        focusOnFirstError
        disabled={disabled}
        experimental_defaultFormStateBehavior={DEFAULTS_BEHAVIOR}
        aria-label={FORM_NAME}
      />
      </ErrorVisibilityProvider>
      </UnionPicks.Provider>
    </FormErrorBoundary>
  );
}
