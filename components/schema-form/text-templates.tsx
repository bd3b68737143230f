import { errorId, helpId, type DescriptionFieldProps, type FieldErrorProps, type FieldHelpProps, type TitleFieldProps } from "@rjsf/utils";
import { useErrorsShown } from "./error-visibility";
import { RequiredMark } from "./field-template";

/** rjsf DescriptionFieldTemplate: muted help text under a control, with the id controls point to. */
export function DescriptionFieldTemplate({ id, description }: DescriptionFieldProps) {
  if (!description) return null;
  return (
    <p id={id} className="text-xs leading-5 text-zinc-500">
      {description}
    </p>
  );
}

/** rjsf TitleFieldTemplate: the legend-like title of a nested object. */
export function TitleFieldTemplate({ id, title, required }: TitleFieldProps) {
  return (
    <p id={id} className="text-[13px] font-semibold text-zinc-800">
      {title}
      {required ? <RequiredMark /> : null}
    </p>
  );
}

/** rjsf FieldErrorTemplate: the field's validation messages in red, with the id its control points to, once they show (see errorsShownFor). */
export function FieldErrorTemplate({ errors = [], fieldPathId }: FieldErrorProps) {
  const shown = useErrorsShown(fieldPathId.$id);
  const messages = errors.filter(Boolean);
  if (!shown || messages.length === 0) return null;
  return (
    <ul id={errorId(fieldPathId)} className="space-y-0.5 text-xs text-red-700">
      {messages.map((message, index) => (
        <li key={index}>{message}</li>
      ))}
    </ul>
  );
}

/** rjsf FieldHelpTemplate: `ui:help` text under a field. */
export function FieldHelpTemplate({ help, fieldPathId }: FieldHelpProps) {
  if (!help) return null;
  return (
    <p id={helpId(fieldPathId)} className="text-xs text-zinc-500">
      {help}
    </p>
  );
}
