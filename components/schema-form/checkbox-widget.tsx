import { ariaDescribedByIds, descriptionId, getTemplate, schemaRequiresTrueValue, type WidgetProps } from "@rjsf/utils";
import { RequiredMark, useDrawnField, useDrawnLabel } from "./field-template";
import { NameText } from "./item-names";
import { useErrorsShown } from "./error-visibility";

/**
 * rjsf CheckboxWidget: a boolean as a checkbox with its label on the right (after the items enclosing it
 * for screen readers, an item's name for an item: see useDrawnLabel), followed on its row by the
 * field's header line (see DrawnField), and the description under it. The `required` attribute is set only when the schema demands `true` (an unticked box is a value).
 */
export function CheckboxWidget({ schema, uiSchema, options, id, value, disabled, readonly, label, hideLabel, autofocus = false, onBlur, onFocus, onChange, registry, htmlName, required, rawErrors }: WidgetProps) {
  const DescriptionFieldTemplate = getTemplate("DescriptionFieldTemplate", registry, options);
  const requiresTrue = schemaRequiresTrueValue(schema) && required;
  const description = options.description ?? schema.description;
  const invalid = useErrorsShown(id) && (rawErrors?.length ?? 0) > 0;
  const { afterLabel } = useDrawnField();
  const name = useDrawnLabel(label);
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
        <label className="inline-flex cursor-pointer items-center gap-2 text-[13px] font-medium text-zinc-800 has-disabled:cursor-not-allowed has-disabled:text-zinc-500">
          <input
            type="checkbox"
            id={id}
            name={htmlName || id}
            checked={value === true}
            required={requiresTrue}
            disabled={disabled || readonly}
            autoFocus={autofocus}
            aria-invalid={invalid || undefined}
            aria-describedby={ariaDescribedByIds(id)}
            onChange={(event) => onChange(event.target.checked)}
            onBlur={(event) => onBlur(id, event.target.checked)}
            onFocus={(event) => onFocus(id, event.target.checked)}
            className="size-4 rounded border-zinc-300 accent-zinc-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
          />
          {!hideLabel && label ? (
            <span>
              <NameText name={name} />
              {requiresTrue ? <RequiredMark /> : null}
            </span>
          ) : null}
        </label>
        {afterLabel ? <div className="min-w-0 flex-1">{afterLabel}</div> : null}
      </div>
      {!hideLabel && description ? (
        <div className="pl-6">
          <DescriptionFieldTemplate id={descriptionId(id)} description={description} schema={schema} uiSchema={uiSchema} registry={registry} />
        </div>
      ) : null}
    </div>
  );
}
