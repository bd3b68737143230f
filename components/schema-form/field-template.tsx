import { createContext, useContext, useEffect, type ReactNode } from "react";
import { ADDITIONAL_PROPERTY_FLAG, deepEquals, getTemplate, getUiOptions, type FieldTemplateProps, type RJSFSchema } from "@rjsf/utils";
import { controlClass } from "@/components/ui/control-styles";
import { cx } from "@/components/ui/class-names";
import { describeConstraints } from "./constraint-hint";
import { useErrorsShown } from "./error-visibility";
import { fixedValueOf, formatConstValue } from "./form-schema";
import { NameText, spokenName, useEnclosingItems, type FieldName } from "./item-names";
import { UnionPicker, unionPickerId, unionPickerName } from "./union-picks";

/** The form's accessible name; the root object's fields have no other label to name them by. */
export const FORM_NAME = "Arguments";

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

/** The id and name of the anyOf/oneOf field being drawn: the option's own field has the same id (see FieldTemplate). */
const EnclosingUnion = createContext<{ id: string; name: FieldName } | null>(null);

/** The errors of the anyOf/oneOf field being drawn, shown under its picker (see MultiSchemaFieldTemplate). */
const UnionErrors = createContext<ReactNode>(null);

/**
 * What a field tells the control drawn inside it: `name`, the field's label as the person sees it (a
 * union's option goes by its union's label, the root object by FORM_NAME, an array item by its name
 * "Target 2") after the array items enclosing it, which buttons acting on the field repeat
 * (spokenName: "Add property to Env", "Add item to Target 2 Ports"); `isItem`, true when the field is
 * an array item, whose legend or label then shows its name instead of the schema's title (see
 * useDrawnLabel); and `afterLabel`, the field's header line (type and constraints, marks, state, Set
 * null and Clear) when the control draws the label itself — an array's or an object's legend, a
 * checkbox's label — and shows it right after that label, as every other field shows it after its own.
 */
export interface DrawnField {
  name: FieldName;
  isItem: boolean;
  afterLabel: ReactNode;
}

const DrawnFieldContext = createContext<DrawnField>({ name: { items: [], label: FORM_NAME }, isItem: false, afterLabel: null });

/** The DrawnField of the field whose control is being drawn (outside a form: FORM_NAME, no header). */
export function useDrawnField(): DrawnField {
  return useContext(DrawnFieldContext);
}

/**
 * The name of the legend or label a control draws for its field, whose schema title is `title`: an
 * array item's name ("Target 2") for an item, else the title, in both cases after the array items
 * enclosing it (see NameText).
 */
export function useDrawnLabel(title: string): FieldName {
  const field = useDrawnField();
  const items = useEnclosingItems();
  return field.isItem ? field.name : { items, label: title };
}

/**
 * A field's header line, above its control or, when the control draws the label, right after that
 * label (DrawnField): its label, its type and constraints ("integer · 1–100"), `read-only` and
 * `deprecated` marks, whether it is sent as null or not at all, and the buttons that make it so:
 * "Set null" (nullable fields) and "Clear" (optional fields: the field is then absent from the args,
 * unlike an empty string or an empty list, which are values).
 */
function FieldHeader(props: FieldTemplateProps & { name: FieldName; showLabel: boolean; isArrayItem: boolean; isUnionOption: boolean; isFixed: boolean }) {
  const { id, name, required, schema, formData, readonly, disabled, onChange, fieldPathId, isArrayItem, isUnionOption, isFixed } = props;
  const spoken = spokenName(name);
  // A plain object draws its own legend: its header only says whether it is sent, with Set null and Clear.
  const plainObject = schema.type === "object" && !schema.anyOf && !schema.oneOf;
  const showLabel = props.showLabel && !plainObject;
  const hint = plainObject || isFixed ? "" : describeConstraints(schema);
  // The chosen option of an anyOf/oneOf field: the field's own header (label, state, Set null, Clear) is
  // just above, so only what the option adds to it is shown (its constraints, read-only, deprecated).
  if (isUnionOption) {
    const extra = hint && hint !== schema.type ? hint : null;
    if (!extra && !schema.readOnly && !schema.deprecated && !isFixed) return null;
    return (
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
        {extra ? (
          <span className="font-mono text-[11px] text-zinc-500" data-testid="option-hint">
            {extra}
          </span>
        ) : null}
        {isFixed ? <FixedMark /> : null}
        {schema.readOnly ? <span className="rounded bg-zinc-100 px-1 text-[11px] text-zinc-600">read-only</span> : null}
        {schema.deprecated ? <span className="rounded bg-amber-100 px-1 text-[11px] text-amber-800">deprecated</span> : null}
      </div>
    );
  }
  // A fixed value (const) is always sent: there is nothing to clear or set to null.
  const editable = !readonly && !disabled && !isArrayItem && !isFixed;
  const canClear = editable && !required && formData !== undefined;
  const canNull = editable && allowsNull(schema) && formData !== null;
  const state = isArrayItem || isFixed ? null : formData === null ? "null" : formData === undefined && !required ? "not sent" : null;
  if (!showLabel && !hint && !schema.readOnly && !schema.deprecated && !canClear && !canNull && !state && !isFixed) return null;
  // An array item or a map value: only its label for screen readers, which takes no room beside its
  // siblings — unless its control draws the label (a checkbox's, a legend): a second label would be heard twice.
  if (isArrayItem && !schema.readOnly && !schema.deprecated && !isFixed) {
    return showLabel ? (
      <label htmlFor={id} className="sr-only">
        <NameText name={name} />
      </label>
    ) : null;
  }
  return (
    <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
      {showLabel ? (
        <label htmlFor={id} className={isArrayItem ? "sr-only" : "text-[13px] font-medium text-zinc-800"}>
          <NameText name={name} />
          {required && !isArrayItem ? <RequiredMark /> : null}
        </label>
      ) : null}
      {hint && !isArrayItem ? (
        <span className="font-mono text-[11px] text-zinc-500" data-testid="field-hint">
          {hint}
        </span>
      ) : null}
      {isFixed ? <FixedMark /> : null}
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
            <button type="button" className={SMALL_BUTTON} aria-label={`Set ${spoken} to null`} onClick={() => onChange(null, fieldPathId.path)}>
              Set null
            </button>
          ) : null}
          {canClear ? (
            <button type="button" className={SMALL_BUTTON} aria-label={`Clear ${spoken}`} onClick={() => onChange(undefined, fieldPathId.path)}>
              Clear
            </button>
          ) : null}
        </span>
      ) : null}
    </div>
  );
}

function FixedMark() {
  return (
    <span className="rounded bg-zinc-100 px-1 text-[11px] text-zinc-600" data-testid="field-fixed">
      fixed value
    </span>
  );
}

/**
 * The control of a field that allows one value (`const`, or an enum of one): the value, read-only. It
 * is filled in whenever the field is drawn — in the chosen branch of a union, in a new array item — so
 * a person never meets a blank box that accepts only one answer (issue 14 point 4).
 */
function FixedValue({ id, value, formData, active, onFill }: { id: string; value: unknown; formData: unknown; active: boolean; onFill: () => void }) {
  const filled = deepEquals(formData, value);
  useEffect(() => {
    if (active && !filled) onFill();
  });
  return <input id={id} type="text" readOnly value={formatConstValue(value)} className={cx(controlClass(false), "h-8 max-w-md bg-zinc-50 font-mono text-zinc-700")} />;
}

/**
 * rjsf FieldTemplate: the header (label bound to the control with `*` when required, type and
 * constraints, read-only/deprecated/fixed marks, "not sent" or "null", Set null/Clear), the control,
 * the field's description as help text, then its errors once they show (see errorsShownFor). Arrays,
 * objects and checkboxes draw their own label (legend, checkbox label) and the header right after it
 * (DrawnField); array items and a map's values keep their label for screen readers only (the map's key
 * box names the value). An array item is named by its position ("Target 2", see arrayItemName) and
 * every name inside it starts with the item's ("Target 2 Host", "Clear Target 2 Port"), so the items
 * of one array can be told apart by ear and by voice. The root object has no header, a root
 * anyOf/oneOf only its title, as its picker's label. A union's label is shown whatever its type, and its picker is named after it
 * (unionPickerName: "Tags: type"); the chosen option of an anyOf/oneOf field (same id as the field)
 * shows only its constraints, under the field's own header, and the union's errors show under its
 * picker. A field that allows one value shows it, read-only, and holds it (FixedValue).
 */
export function FieldTemplate(props: FieldTemplateProps) {
  const { label, children, errors, help, description, hidden, displayLabel, rawErrors, registry, uiSchema, fieldPathId, schema, formData, onChange, disabled, readonly, id } = props;
  const enclosingUnion = useContext(EnclosingUnion);
  const enclosingItems = useEnclosingItems();
  const errorsShown = useErrorsShown(fieldPathId.$id);
  if (hidden) return <div className="hidden">{children}</div>;
  // A union of consts is drawn as a select (rjsf's isSelect), not as a picker of branches.
  const isUnion = Boolean(schema.anyOf || schema.oneOf) && !registry.schemaUtils.isSelect(schema);
  const isUnionOption = !isUnion && enclosingUnion?.id === fieldPathId.$id;
  // A union's const option is the picker's business (rjsf sets it when picked, Clear unsets it).
  const fixed = isUnionOption ? undefined : fixedValueOf(schema);
  const uiOptions = getUiOptions(uiSchema);
  const WrapIfAdditionalTemplate = getTemplate("WrapIfAdditionalTemplate", registry, uiOptions);
  const FieldErrorTemplate = getTemplate("FieldErrorTemplate", registry, uiOptions);
  const invalid = errorsShown && (rawErrors?.length ?? 0) > 0;
  // An array item's label ("Patterns-1") only repeats the array's legend and the item's number, and a
  // map value's label only repeats its key: keep them for screen readers.
  const isItem = typeof fieldPathId.path[fieldPathId.path.length - 1] === "number";
  const isArrayItem = isItem || ADDITIONAL_PROPERTY_FLAG in schema;
  const isRoot = fieldPathId.path.length === 0;
  // The root object's title is not shown (the page names the form); a root union's title names its
  // picker. An array item goes by its name ("Target 2", not rjsf's "Target" or "Steps-2"), the last
  // of the items enclosing it; every other field's name starts with the items enclosing it.
  const name: FieldName =
    enclosingUnion && isUnionOption
      ? enclosingUnion.name
      : isRoot
        ? { items: [], label: isUnion && label ? label : FORM_NAME }
        : isItem
          ? { items: enclosingItems.slice(0, -1), label: enclosingItems[enclosingItems.length - 1] ?? label }
          : { items: enclosingItems, label: label || "field" };
  const fieldLabel = spokenName(name);
  const pickerId = unionPickerId(fieldPathId.$id, schema);
  const control = fixed ? (
    <FixedValue id={id} value={fixed.value} formData={formData} active={!disabled && !readonly} onFill={() => onChange(fixed.value, fieldPathId.path)} />
  ) : isUnion ? (
    <EnclosingUnion.Provider value={{ id: fieldPathId.$id, name }}>
      <UnionPicker.Provider value={{ id: pickerId, name: unionPickerName(fieldLabel, schema) }}>
        {/* rjsf leaves a union's errors to its option's field; they show under the picker instead. */}
        <UnionErrors.Provider value={<FieldErrorTemplate errors={rawErrors} fieldPathId={fieldPathId} schema={schema} uiSchema={uiSchema} registry={registry} />}>{children}</UnionErrors.Provider>
      </UnionPicker.Provider>
    </EnclosingUnion.Provider>
  ) : (
    children
  );
  // A union's label names its picker, whatever type rjsf would have its option draw a legend for.
  const showLabel = Boolean(label) && (displayLabel || isUnion || Boolean(fixed));
  const header = isRoot ? (
    isUnion && label ? (
      <label htmlFor={pickerId} className="block text-[13px] font-medium text-zinc-800">
        {label}
      </label>
    ) : null
  ) : (
    <FieldHeader {...props} name={name} showLabel={showLabel} isArrayItem={isArrayItem} isUnionOption={isUnionOption} isFixed={Boolean(fixed)} />
  );
  // rjsf leaves the label of arrays, objects and checkboxes to their control, which shows the header after it.
  const labelDrawnByControl = !isRoot && !displayLabel && !isUnion && !fixed;
  return (
    <WrapIfAdditionalTemplate {...props}>
      <div className="space-y-1" data-invalid={invalid || undefined} data-field={isRoot ? undefined : fieldPathId.path.join(".")}>
        {labelDrawnByControl ? null : header}
        <DrawnFieldContext.Provider value={{ name, isItem: isItem && !isUnionOption, afterLabel: labelDrawnByControl ? header : null }}>{control}</DrawnFieldContext.Provider>
        {displayLabel && description ? description : null}
        {/* A union's errors show under its picker; its chosen option shares them (same field). */}
        {isUnion || isUnionOption ? null : errors}
        {help}
      </div>
    </WrapIfAdditionalTemplate>
  );
}

/**
 * rjsf MultiSchemaFieldTemplate (anyOf/oneOf): the option picker, the union's own errors right under
 * it (issue 14 point 4), then the chosen option's fields.
 */
export function MultiSchemaFieldTemplate({ selector, optionSchemaField }: { selector?: ReactNode; optionSchemaField?: ReactNode }) {
  const errors = useContext(UnionErrors);
  return (
    <div className="space-y-2">
      {selector ? (
        <div className="space-y-1" data-testid="union-picker">
          {selector}
          {errors}
        </div>
      ) : null}
      {optionSchemaField}
    </div>
  );
}
