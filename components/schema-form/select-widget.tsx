import { useCallback, type ChangeEvent, type FocusEvent } from "react";
import {
  ariaDescribedByIds,
  enumOptionSelectedValue,
  enumOptionValueDecoder,
  enumOptionValueEncoder,
  getOptionValueFormat,
  type WidgetProps,
} from "@rjsf/utils";
import { controlClass } from "@/components/ui/control-styles";
import { cx } from "@/components/ui/class-names";
import { useErrorsShown } from "./error-visibility";
import { useDrawnField } from "./field-template";
import { NameText, spokenName, useEnclosingItems } from "./item-names";
import { useRecordUnionPick, useUnionPickerName } from "./union-picks";

function selectedValues(event: { target: HTMLSelectElement }, multiple: boolean): string | string[] {
  if (!multiple) return event.target.value;
  return Array.from(event.target.options)
    .filter((option) => option.selected)
    .map((option) => option.value);
}

/**
 * A multi-select of enum values as a row of checkboxes (easier to use than a `<select multiple>`),
 * named after its field; inside an array item each checkbox's name starts with the item's ("Target 2 sms").
 */
function CheckboxGroup({ id, options, value, disabled, readonly, onChange, onBlur, onFocus }: WidgetProps) {
  const field = useDrawnField();
  const items = useEnclosingItems();
  const enumOptions = options.enumOptions ?? [];
  const selected: unknown[] = Array.isArray(value) ? value : [];
  function toggle(optionValue: unknown, checked: boolean) {
    const next = enumOptions.map((option) => option.value).filter((candidate) => (candidate === optionValue ? checked : selected.includes(candidate)));
    onChange(next);
  }
  return (
    <div id={id} role="group" aria-label={spokenName(field.name)} aria-describedby={ariaDescribedByIds(id)} className="flex flex-wrap gap-x-4 gap-y-1.5">
      {enumOptions.map((option, index) => (
        <label key={index} className="inline-flex cursor-pointer items-center gap-2 text-[13px] text-zinc-800">
          <input
            type="checkbox"
            id={`${id}-${index}`}
            checked={selected.includes(option.value)}
            disabled={disabled || readonly || (Array.isArray(options.enumDisabled) && options.enumDisabled.includes(option.value))}
            onChange={(event) => toggle(option.value, event.target.checked)}
            onBlur={() => onBlur(id, selected)}
            onFocus={() => onFocus(id, selected)}
            className="size-4 rounded border-zinc-300 accent-zinc-900"
          />
          <span className="font-mono text-[12.5px]">
            <NameText name={{ items, label: option.label }} />
          </span>
        </label>
      ))}
    </div>
  );
}

/**
 * rjsf SelectWidget: a native `<select>` for `enum`s; a multi-select of an enum array is drawn as a
 * checkbox group. Without a default, a first empty option stands for "not set". A union's option picker
 * is named by its field (unionPickerName: "Tags: type", "Source: option", an item's "Steps 2: option"),
 * as is a select whose label is hidden (the field's name, see DrawnField).
 */
export function SelectWidget(props: WidgetProps) {
  if (props.multiple) return <CheckboxGroup {...props} />;
  return <SingleSelect {...props} />;
}

function SingleSelect({ schema, id, options, value, required, disabled, readonly, multiple = false, autofocus = false, onChange, onBlur, onFocus, placeholder, htmlName, rawErrors, label, hideLabel }: WidgetProps) {
  const { enumOptions, enumDisabled, emptyValue } = options;
  const format = getOptionValueFormat(options);
  const decode = useCallback(
    (raw: string | string[]) => enumOptionValueDecoder(raw, enumOptions, format, emptyValue),
    [enumOptions, format, emptyValue],
  );
  const invalid = useErrorsShown(id) && (rawErrors?.length ?? 0) > 0;
  const recordPick = useRecordUnionPick(id);
  const pickerName = useUnionPickerName(id);
  const field = useDrawnField();
  // A union's picker: what it shows is the branch the form validates (see createArgsValidator).
  recordPick(value);
  const selectValue = enumOptionSelectedValue(value, enumOptions, multiple, format, multiple ? [] : "");

  return (
    <select
      id={id}
      name={htmlName || id}
      multiple={multiple}
      className={cx(controlClass(invalid), multiple ? "min-h-20" : "h-8 max-w-md")}
      value={selectValue as string | string[]}
      required={required}
      disabled={disabled || readonly}
      autoFocus={autofocus}
      aria-invalid={invalid || undefined}
      aria-label={pickerName ?? (hideLabel && label ? spokenName(field.name) : undefined)}
      aria-describedby={ariaDescribedByIds(id)}
      onChange={(event: ChangeEvent<HTMLSelectElement>) => {
        const next = decode(selectedValues(event, multiple));
        recordPick(next);
        onChange(next);
      }}
      onBlur={(event: FocusEvent<HTMLSelectElement>) => onBlur(id, decode(selectedValues(event, multiple)))}
      onFocus={(event: FocusEvent<HTMLSelectElement>) => onFocus(id, decode(selectedValues(event, multiple)))}
    >
      {!multiple && schema.default === undefined ? <option value="">{placeholder || "— not set —"}</option> : null}
      {(enumOptions ?? []).map(({ value: optionValue, label }, index) => (
        <option key={index} value={enumOptionValueEncoder(optionValue, index, format)} disabled={Array.isArray(enumDisabled) && enumDisabled.includes(optionValue)}>
          {label}
        </option>
      ))}
    </select>
  );
}
