import { ADDITIONAL_PROPERTY_FLAG, buttonId, type WrapIfAdditionalTemplateProps } from "@rjsf/utils";
import { controlClass } from "@/components/ui/control-styles";
import { cx } from "@/components/ui/class-names";
import { spokenName, useEnclosingItems } from "./item-names";

/**
 * rjsf WrapIfAdditionalTemplate: a property added to an open object (a map through
 * `additionalProperties`) as a row — its key (renamed on blur), its value, and a remove button. The
 * key box and the button are named after the entry ("Key of PATH", "Remove PATH"; inside an array
 * item after the item too: "Remove Target 2 PATH"). Declared properties are passed through unchanged.
 */
export function WrapIfAdditionalTemplate(props: WrapIfAdditionalTemplateProps) {
  const { id, classNames, style, disabled, label, onKeyRenameBlur, onRemoveProperty, readonly, schema, children, uiSchema, registry } = props;
  const { RemoveButton } = registry.templates.ButtonTemplates;
  const entry = spokenName({ items: useEnclosingItems(), label });
  if (!(ADDITIONAL_PROPERTY_FLAG in schema)) {
    return (
      <div className={classNames} style={style}>
        {children}
      </div>
    );
  }
  return (
    <div className={cx("flex items-start gap-2", classNames)} style={style} data-additional-property={label}>
      {/* The key's width is its box's: the control's own class makes an input as wide as its parent. */}
      <div className="w-28 shrink-0 sm:w-40">
        <input
          key={label}
          type="text"
          id={`${id}-key`}
          aria-label={`Key of ${entry}`}
          defaultValue={label}
          disabled={disabled || readonly}
          onBlur={onKeyRenameBlur}
          className={cx(controlClass(false), "h-8 font-mono")}
        />
      </div>
      <div className="min-w-0 flex-1">{children}</div>
      <RemoveButton id={buttonId(id, "remove")} className="rjsf-object-property-remove" aria-label={`Remove ${entry}`} disabled={disabled || readonly} onClick={onRemoveProperty} uiSchema={uiSchema} registry={registry} />
    </div>
  );
}
