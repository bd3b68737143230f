import { ADDITIONAL_PROPERTY_FLAG, buttonId, type WrapIfAdditionalTemplateProps } from "@rjsf/utils";
import { controlClass } from "@/components/ui/control-styles";
import { cx } from "@/components/ui/class-names";
import { spokenName, useEnclosingItems } from "./item-names";

/**
 * rjsf WrapIfAdditionalTemplate: a property added to an open object (a map through
 * `additionalProperties`) as a row — its key (renamed on blur), its value, and a remove button, the
 * value under the key where the row is too narrow for the three. The key box and the button are named
 * after the entry ("Key of PATH", "Remove PATH"; inside an array item after the item too: "Remove
 * Target 2 PATH"). Declared properties are passed through unchanged.
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
  // Key, value and Remove share a row where the row has room (its container, not the screen: a map
  // inside an array item is narrow on a phone); else the value takes the line under the key and Remove.
  return (
    <div className={cx("@container", classNames)} style={style} data-additional-property={label}>
      <div className="grid grid-cols-[minmax(0,1fr)_auto] items-start gap-2 @2xs:grid-cols-[7rem_minmax(0,1fr)_auto] @md:grid-cols-[10rem_minmax(0,1fr)_auto]">
        {/* The key's width is its cell's: the control's own class makes an input as wide as its parent. */}
        <div className="col-start-1 row-start-1">
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
        <div className="col-span-2 row-start-2 min-w-0 @2xs:col-span-1 @2xs:col-start-2 @2xs:row-start-1">{children}</div>
        <RemoveButton
          id={buttonId(id, "remove")}
          className="rjsf-object-property-remove col-start-2 row-start-1 @2xs:col-start-3"
          aria-label={`Remove ${entry}`}
          disabled={disabled || readonly}
          onClick={onRemoveProperty}
          uiSchema={uiSchema}
          registry={registry}
        />
      </div>
    </div>
  );
}
