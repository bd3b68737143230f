import { getTemplate, getUiOptions, type FieldTemplateProps } from "@rjsf/utils";
import { cx } from "@/components/ui/class-names";

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

/**
 * rjsf FieldTemplate: label (bound to the control, `*` when required), the control, the field's
 * description as help text, then its errors. Checkbox labels are drawn by the checkbox widget; array
 * items keep their label for screen readers only.
 */
export function FieldTemplate(props: FieldTemplateProps) {
  const { id, label, children, errors, help, description, hidden, required, displayLabel, rawErrors, registry, uiSchema, classNames, style, fieldPathId } = props;
  if (hidden) return <div className="hidden">{children}</div>;
  const uiOptions = getUiOptions(uiSchema);
  const WrapIfAdditionalTemplate = getTemplate("WrapIfAdditionalTemplate", registry, uiOptions);
  const invalid = (rawErrors?.length ?? 0) > 0;
  // An array item's label ("Patterns-1") only repeats the array's legend and the item's number: keep it for screen readers.
  const isArrayItem = typeof fieldPathId.path[fieldPathId.path.length - 1] === "number";
  return (
    <WrapIfAdditionalTemplate {...props}>
      <div className={cx("space-y-1", classNames)} style={style} data-invalid={invalid || undefined}>
        {displayLabel && label ? (
          <label htmlFor={id} className={isArrayItem ? "sr-only" : "block text-[13px] font-medium text-zinc-800"}>
            {label}
            {required && !isArrayItem ? <RequiredMark /> : null}
          </label>
        ) : null}
        {children}
        {displayLabel && description ? description : null}
        {errors}
        {help}
      </div>
    </WrapIfAdditionalTemplate>
  );
}
