import { useCallback, type ChangeEvent, type FocusEvent } from "react";
import { ariaDescribedByIds, examplesId, getInputProps, type BaseInputTemplateProps } from "@rjsf/utils";
import { controlClass } from "@/components/ui/control-styles";
import { cx } from "@/components/ui/class-names";

/**
 * rjsf BaseInputTemplate: the `<input>` behind text, number, integer, email, url, date… fields, styled
 * like the console's inputs, marked invalid while the field has errors, with schema `examples` offered
 * as a datalist. An emptied input reports the field's `emptyValue` (undefined by default).
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
  const inputValue = isNumber ? (value || value === 0 ? value : "") : (value ?? "");
  const invalid = (rawErrors?.length ?? 0) > 0;
  const examples = Array.isArray(schema.examples) ? (schema.examples as unknown[]) : [];

  const handleChange = useCallback(
    (event: ChangeEvent<HTMLInputElement>) => onChange(event.target.value === "" ? options.emptyValue : event.target.value),
    [onChange, options],
  );
  const handleBlur = useCallback((event: FocusEvent<HTMLInputElement>) => onBlur(id, event.target.value), [onBlur, id]);
  const handleFocus = useCallback((event: FocusEvent<HTMLInputElement>) => onFocus(id, event.target.value), [onFocus, id]);

  return (
    <>
      <input
        id={id}
        name={htmlName || id}
        {...inputProps}
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
