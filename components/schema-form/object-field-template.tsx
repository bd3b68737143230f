import { canExpand, descriptionId, getTemplate, getUiOptions, buttonId, type ObjectFieldTemplateProps } from "@rjsf/utils";
import { cx } from "@/components/ui/class-names";
import { RequiredMark, useDrawnField, useDrawnLabel } from "./field-template";
import { NameText, spokenName } from "./item-names";

/**
 * rjsf ObjectFieldTemplate: the root object renders its properties in a plain stack (the page names
 * the form); a nested object is a bordered fieldset whose legend is its title (an array item's name,
 * "Target 2", for an item: see useDrawnLabel), followed on its row by the field's header line (see
 * DrawnField). Objects open to additionalProperties get an "Add property" button named after the field
 * it adds to ("Add property to Env", "Add property to Target 2").
 */
export function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  const { title, description, properties, required, fieldPathId, registry, schema, uiSchema, formData, onAddProperty, disabled, readonly } = props;
  const options = getUiOptions(uiSchema);
  const DescriptionFieldTemplate = getTemplate("DescriptionFieldTemplate", registry, options);
  const { AddButton } = registry.templates.ButtonTemplates;
  const field = useDrawnField();
  const legend = useDrawnLabel(title);
  if ((schema.oneOf || schema.anyOf) && !schema.properties && properties.length === 0) return null;
  const isRoot = fieldPathId.path.length === 0;

  return (
    <fieldset id={fieldPathId.$id} className={cx("min-w-0", !isRoot && "rounded-md border border-zinc-200 bg-zinc-50/60 p-3")}>
      {!isRoot && title ? (
        <legend className="float-left mr-2 mb-1 text-[13px] font-semibold text-zinc-800">
          <NameText name={legend} />
          {required && !field.isItem ? <RequiredMark /> : null}
        </legend>
      ) : null}
      {field.afterLabel}
      <div className="clear-both">
        {description ? (
          <div className="mb-3">
            <DescriptionFieldTemplate id={descriptionId(fieldPathId)} description={description} schema={schema} uiSchema={uiSchema} registry={registry} />
          </div>
        ) : null}
        <div className="space-y-4">{properties.map((property) => property.content)}</div>
        {canExpand(schema, uiSchema, formData) ? (
          <div className="mt-3">
            <AddButton
              id={buttonId(fieldPathId, "add")}
              className="rjsf-object-property-expand"
              aria-label={`Add property to ${spokenName(field.name)}`}
              onClick={onAddProperty}
              disabled={disabled || readonly}
              uiSchema={uiSchema}
              registry={registry}
            />
          </div>
        ) : null}
      </div>
    </fieldset>
  );
}
