import { ariaDescribedByIds, type WidgetProps } from "@rjsf/utils";
import { Textarea } from "@/components/ui/input";
import { useErrorsShown } from "./error-visibility";

/** rjsf TextareaWidget (`ui:widget: "textarea"`): a multi-line text field; `ui:options.rows` sets its height. Emptied, it reports `""` (a value; Clear makes the field absent). */
export function TextareaWidget({ id, htmlName, value, required, disabled, readonly, autofocus, placeholder, onChange, onBlur, onFocus, options, rawErrors }: WidgetProps) {
  const invalid = useErrorsShown(id) && (rawErrors?.length ?? 0) > 0;
  return (
    <Textarea
      id={id}
      name={htmlName || id}
      value={typeof value === "string" ? value : ""}
      required={required}
      disabled={disabled}
      readOnly={readonly}
      autoFocus={autofocus}
      placeholder={placeholder}
      rows={typeof options.rows === "number" ? options.rows : 4}
      invalid={invalid}
      aria-describedby={ariaDescribedByIds(id)}
      onChange={(event) => onChange(event.target.value)}
      onBlur={(event) => onBlur(id, event.target.value)}
      onFocus={(event) => onFocus(id, event.target.value)}
    />
  );
}
