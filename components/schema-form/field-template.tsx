import { createContext, useContext } from "react";
import { getTemplate, getUiOptions, type FieldTemplateProps, type RJSFSchema } from "@rjsf/utils";
import { cx } from "@/components/ui/class-names";
import { describeConstraints } from "./constraint-hint";

/** The `*` after a required field's label (hidden from screen readers, which hear "required" instead). */
export function RequiredMark() {
  return (
    <>
      <span aria-hidden="true" className="ml-0.5 text-red-600">
        *
      </span>
      <span className="sr-only"> (required)</span>
    </>
  );
}

const SMALL_BUTTON =
  "rounded border border-zinc-300 bg-white px-1.5 py-px text-[11px] font-medium text-zinc-600 hover:bg-zinc-50 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-600";

/** True when null is one of the field's values: a `null` type, or (a union rewritten by toFormSchema) a `const: null` option. */
function allowsNull(schema: RJSFSchema): boolean {
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  const options = (schema.anyOf ?? schema.oneOf ?? []) as unknown[];
  return options.some((option) => typeof option === "object" && option !== null && "const" in option && (option as { const: unknown }).const === null);
}

/** The id of the anyOf/oneOf field being drawn: the option's own field has the same id (see FieldTemplate). */
const EnclosingUnion = createContext<string | null>(null);

/**
 * The line above a field: its label, its type and constraints ("integer · 1–100"), `read-only` and
 * `deprecated` marks, whether it is sent as null or not at all, and the buttons that make it so:
 * "Set null" (nullable fields) and "Clear" (optional fields: the field is then absent from the args,
 * unlike an empty string or an empty list, which are values).
 */
function FieldHeader(props: FieldTemplateProps & { showLabel: boolean; isArrayItem: boolean; isUnionOption: boolean }) {
  const { id, label, required, schema, formData, readonly, disabled, onChange, fieldPathId, showLabel, isArrayItem, isUnionOption } = props;
  // A plain object draws its own legend; its header would only repeat it (an anyOf/oneOf option is one too).
  const plainObject = !showLabel && schema.type === "object" && !schema.anyOf && !schema.oneOf;
  if (plainObject) return null;
  const hint = describeConstraints(schema);
  // The chosen option of an anyOf/oneOf field: the field's own header (label, state, Set null, Clear) is
  // just above, so only what the option adds to it is shown (its constraints, read-only, deprecated).
  if (isUnionOption) {
    const extra = hint && hint !== schema.type ? hint : null;
    if (!extra && !schema.readOnly && !schema.deprecated) return null;
    return (
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
        {extra ? (
          <span className="font-mono text-[11px] text-zinc-500" data-testid="option-hint">
            {extra}
          </span>
        ) : null}
        {schema.readOnly ? <span className="rounded bg-zinc-100 px-1 text-[11px] text-zinc-600">read-only</span> : null}
        {schema.deprecated ? <span className="rounded bg-amber-100 px-1 text-[11px] text-amber-800">deprecated</span> : null}
      </div>
    );
  }
  const editable = !readonly && !disabled && !isArrayItem;
  const canClear = editable && !required && formData !== undefined;
  const canNull = editable && allowsNull(schema) && formData !== null;
  const state = isArrayItem ? null : formData === null ? "null" : formData === undefined && !required ? "not sent" : null;
  if (!showLabel && !hint && !schema.readOnly && !schema.deprecated && !canClear && !canNull && !state) return null;
  return (
    <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
      {showLabel ? (
        <label htmlFor={id} className={isArrayItem ? "sr-only" : "text-[13px] font-medium text-zinc-800"}>
          {label}
          {required && !isArrayItem ? <RequiredMark /> : null}
        </label>
      ) : null}
      {hint && !isArrayItem ? (
        <span className="font-mono text-[11px] text-zinc-500" data-testid="field-hint">
          {hint}
        </span>
      ) : null}
      {schema.readOnly ? <span className="rounded bg-zinc-100 px-1 text-[11px] text-zinc-600">read-only</span> : null}
      {schema.deprecated ? <span className="rounded bg-amber-100 px-1 text-[11px] text-amber-800">deprecated</span> : null}
      {state ? (
        <span className="text-[11px] text-zinc-400 italic" data-testid="field-state">
          {state}
        </span>
      ) : null}
      {canNull || canClear ? (
        <span className="ml-auto flex gap-1">
          {canNull ? (
            <button type="button" className={SMALL_BUTTON} aria-label={`Set ${label || "field"} to null`} onClick={() => onChange(null, fieldPathId.path)}>
              Set null
            </button>
          ) : null}
          {canClear ? (
            <button type="button" className={SMALL_BUTTON} aria-label={`Clear ${label || "field"}`} onClick={() => onChange(undefined, fieldPathId.path)}>
              Clear
            </button>
          ) : null}
        </span>
      ) : null}
    </div>
  );
}

/**
 * rjsf FieldTemplate: the header (label bound to the control with `*` when required, type and
 * constraints, read-only/deprecated marks, Set null/Clear), the control, the field's description as
 * help text, then its errors. Checkbox labels are drawn by the checkbox widget; array items keep their
 * label for screen readers only; the root object has no header; the chosen option of an anyOf/oneOf
 * field (same id as the field) shows only its constraints, under the field's own header.
 */
export function FieldTemplate(props: FieldTemplateProps) {
  const { label, children, errors, help, description, hidden, displayLabel, rawErrors, registry, uiSchema, fieldPathId, schema } = props;
  const enclosingUnion = useContext(EnclosingUnion);
  if (hidden) return <div className="hidden">{children}</div>;
  const isUnion = Boolean(schema.anyOf || schema.oneOf);
  const isUnionOption = !isUnion && enclosingUnion === fieldPathId.$id;
  const uiOptions = getUiOptions(uiSchema);
  const WrapIfAdditionalTemplate = getTemplate("WrapIfAdditionalTemplate", registry, uiOptions);
  const invalid = (rawErrors?.length ?? 0) > 0;
  // An array item's label ("Patterns-1") only repeats the array's legend and the item's number: keep it for screen readers.
  const isArrayItem = typeof fieldPathId.path[fieldPathId.path.length - 1] === "number";
  const isRoot = fieldPathId.path.length === 0;
  return (
    <WrapIfAdditionalTemplate {...props}>
      <div className="space-y-1" data-invalid={invalid || undefined} data-field={isRoot ? undefined : fieldPathId.path.join(".")}>
        {isRoot ? null : <FieldHeader {...props} showLabel={Boolean(displayLabel && label)} isArrayItem={isArrayItem} isUnionOption={isUnionOption} />}
        {isUnion ? <EnclosingUnion.Provider value={fieldPathId.$id}>{children}</EnclosingUnion.Provider> : children}
        {displayLabel && description ? description : null}
        {errors}
        {help}
      </div>
    </WrapIfAdditionalTemplate>
  );
}
