import { useCallback, useState, type ChangeEvent, type FocusEvent } from "react";
import { ariaDescribedByIds, examplesId, getInputProps, type BaseInputTemplateProps } from "@rjsf/utils";
import { controlClass } from "@/components/ui/control-styles";
import { cx } from "@/components/ui/class-names";
import { useErrorsShown } from "./error-visibility";

/**
 * rjsf BaseInputTemplate: the `<input>` behind text, number, integer, email, url, date… fields, styled
 * like the console's inputs, marked invalid while the field has errors, with schema `examples` offered
 * as a datalist. An emptied text input reports `""` (an empty string is a value; the field's Clear
 * button makes it absent); an emptied number input reports the field's `emptyValue` (undefined).
 * Numbers are typed as text: the raw text is kept while it is not yet a number ("-", "1.", "-0.")
 * and parsed as soon as it is one, so the field never rewrites what the operator types.
 */
export function BaseInputTemplate(props: BaseInputTemplateProps) {
  const {
    id,
    htmlName,
    value,
    readonly,
    disabled,
    autofocus,
    onBlur,
    onFocus,
    onChange,
    onChangeOverride,
    options,
    schema,
    rawErrors,
    type,
    placeholder,
    required,
  } = props;
  const inputProps = getInputProps(schema, type, options);
  const isNumber = inputProps.type === "number" || inputProps.type === "integer";
  const [rawNumber, setRawNumber] = useState<string | null>(null);
  // Keep the typed text while it still means the current value ("1.0" for 1, "-" for nothing yet).
  const typedStillCurrent = rawNumber !== null && typedTextMeans(rawNumber, value);
  const inputValue = isNumber ? (typedStillCurrent ? rawNumber : value === undefined || value === null ? "" : String(value)) : (value ?? "");
  const invalid = useErrorsShown(id) && (rawErrors?.length ?? 0) > 0;
  const examples = Array.isArray(schema.examples) ? (schema.examples as unknown[]) : [];

  const handleChange = useCallback(
    (event: ChangeEvent<HTMLInputElement>) => {
      const text = event.target.value;
      if (!isNumber) return onChange(text);
      setRawNumber(text);
      // Text that is not a number yet is passed on as is: validation then says "must be a number".
      onChange(text.trim() === "" ? options.emptyValue : (parseNumber(text) ?? text));
    },
    [onChange, options, isNumber],
  );
  const handleBlur = useCallback((event: FocusEvent<HTMLInputElement>) => onBlur(id, event.target.value), [onBlur, id]);
  const handleFocus = useCallback((event: FocusEvent<HTMLInputElement>) => onFocus(id, event.target.value), [onFocus, id]);

  return (
    <>
      <input
        id={id}
        name={htmlName || id}
        {...inputProps}
        {...(isNumber ? { type: "text", inputMode: "decimal" as const, step: undefined } : {})}
        className={cx(controlClass(invalid), "h-8", isNumber && "max-w-48 font-mono tabular-nums")}
        readOnly={readonly}
        disabled={disabled}
        autoFocus={autofocus}
        placeholder={placeholder}
        required={required}
        value={inputValue as string | number}
        list={examples.length > 0 ? examplesId(id) : undefined}
        onChange={onChangeOverride || handleChange}
        onBlur={handleBlur}
        onFocus={handleFocus}
        aria-invalid={invalid || undefined}
        aria-describedby={ariaDescribedByIds(id, examples.length > 0)}
      />
      {examples.length > 0 ? (
        <datalist id={examplesId(id)}>
          {examples.map((example) => (
            <option key={String(example)} value={String(example)} />
          ))}
        </datalist>
      ) : null}
    </>
  );
}

/** `text` as a JSON number when it is one in full ("-0.5", "1e3"), else null ("-", "1.", "abc"). */
function parseNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) || trimmed.endsWith(".")) return null;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : null;
}

/** True when the typed `text` still stands for the field's `value` (so the input keeps showing it). */
function typedTextMeans(text: string, value: unknown): boolean {
  if (typeof value === "number") return text.trim() !== "" && Number(text.trim()) === value;
  if (typeof value === "string") return text === value;
  return text.trim() === "";
}
