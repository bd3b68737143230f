import { useEffect, useRef } from "react";
import { buttonId, getTemplate, getUiOptions, type ArrayFieldItemTemplateProps, type ArrayFieldTemplateProps } from "@rjsf/utils";
import { RequiredMark, useDrawnField } from "./field-template";
import { IconButton } from "./button-templates";

/**
 * rjsf ArrayFieldTemplate: a fieldset with the array's title as legend followed on its row by the
 * field's header line (see DrawnField), its description, the items, and an "Add item" button named
 * after the field it adds to ("Add item to Targets") while more items are allowed. The item it adds
 * holds its schema's defaults (see ArrayFieldWithItemDefaults) and gets the focus (its first
 * control), so a keyboard user types into it rather than into the button.
 */
export function ArrayFieldTemplate(props: ArrayFieldTemplateProps) {
  const { canAdd, disabled, readonly, fieldPathId, uiSchema, items, onAddClick, registry, required, schema, title } = props;
  const uiOptions = getUiOptions(uiSchema);
  const DescriptionFieldTemplate = getTemplate("DescriptionFieldTemplate", registry, uiOptions);
  const { AddButton } = registry.templates.ButtonTemplates;
  const label = uiOptions.title || title;
  const description = uiOptions.description || schema.description;
  const field = useDrawnField();
  const list = useRef<HTMLOListElement>(null);
  const added = useRef(false);
  useEffect(() => {
    if (!added.current) return;
    added.current = false;
    list.current?.lastElementChild?.querySelector<HTMLElement>("input, select, textarea")?.focus();
  }, [items.length]);
  return (
    <fieldset id={fieldPathId.$id} className="min-w-0">
      {label ? (
        <legend className="float-left mr-2 mb-1 text-[13px] font-medium text-zinc-800">
          {label}
          {required ? <RequiredMark /> : null}
        </legend>
      ) : null}
      {field.afterLabel}
      {description ? (
        <div className="clear-both mb-2">
          <DescriptionFieldTemplate id={`${fieldPathId.$id}__description`} description={description} schema={schema} uiSchema={uiSchema} registry={registry} />
        </div>
      ) : null}
      {items.length > 0 ? (
        <ol ref={list} className="clear-both space-y-2">
          {items}
        </ol>
      ) : (
        <p className="clear-both mb-2 text-xs text-zinc-500 italic">No items.</p>
      )}
      {canAdd ? (
        <div className="mt-2">
          <AddButton
            id={buttonId(fieldPathId, "add")}
            className="rjsf-array-item-add"
            aria-label={`Add item to ${field.label}`}
            onClick={(event) => {
              added.current = true;
              onAddClick(event);
            }}
            disabled={disabled || readonly}
            uiSchema={uiSchema}
            registry={registry}
          />
        </div>
      ) : null}
    </fieldset>
  );
}

/**
 * rjsf ArrayFieldItemTemplate: one item with its position and a toolbar (move up, move down, duplicate,
 * remove) whose buttons name the item they act on.
 */
export function ArrayFieldItemTemplate(props: ArrayFieldItemTemplateProps) {
  const { children, buttonsProps, hasToolbar, index, totalItems } = props;
  const { hasMoveUp, hasMoveDown, hasCopy, hasRemove, disabled, readonly, onMoveUpItem, onMoveDownItem, onCopyItem, onRemoveItem, fieldPathId } = buttonsProps;
  const inactive = disabled || readonly;
  const position = `item ${index + 1} of ${totalItems}`;
  return (
    <li className="flex items-start gap-2 rounded-md border border-zinc-200 bg-white p-2">
      <span className="mt-1.5 w-5 shrink-0 text-right font-mono text-[11px] text-zinc-400 tabular-nums" aria-hidden="true">
        {index + 1}
      </span>
      <div className="min-w-0 flex-1">{children}</div>
      {hasToolbar ? (
        <div className="flex shrink-0 gap-1" role="group" aria-label={`Actions for ${position}`}>
          {hasMoveUp || hasMoveDown ? (
            <>
              <IconButton id={buttonId(fieldPathId, "moveUp")} label={`Move ${position} up`} icon="up" disabled={inactive || !hasMoveUp} onClick={onMoveUpItem} />
              <IconButton id={buttonId(fieldPathId, "moveDown")} label={`Move ${position} down`} icon="down" disabled={inactive || !hasMoveDown} onClick={onMoveDownItem} />
            </>
          ) : null}
          {hasCopy ? <IconButton id={buttonId(fieldPathId, "copy")} label={`Duplicate ${position}`} icon="copy" disabled={inactive} onClick={onCopyItem} /> : null}
          {hasRemove ? <IconButton id={buttonId(fieldPathId, "remove")} label={`Remove ${position}`} icon="remove" disabled={inactive} onClick={onRemoveItem} /> : null}
        </div>
      ) : null}
    </li>
  );
}
