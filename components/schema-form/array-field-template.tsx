import { useEffect, useMemo, useRef } from "react";
import { buttonId, getTemplate, getUiOptions, type ArrayFieldItemTemplateProps, type ArrayFieldTemplateProps } from "@rjsf/utils";
import { RequiredMark, useDrawnField, useDrawnLabel } from "./field-template";
import { IconButton } from "./button-templates";
import { arrayItemName, EnclosingItems, NameText, spokenName, useEnclosingItems } from "./item-names";

/**
 * rjsf ArrayFieldTemplate: a fieldset with the array's title as legend (an item's name when the array
 * is an item, see useDrawnLabel) followed on its row by the field's header line (see DrawnField), its
 * description, the items, and an "Add item" button named after the field it adds to ("Add item to
 * Targets", "Add item to Target 2 Ports") while more items are allowed. The item it adds holds its
 * schema's defaults (see ArrayFieldWithItemDefaults) and gets the focus (its first control), so a
 * keyboard user types into it rather than into the button.
 */
export function ArrayFieldTemplate(props: ArrayFieldTemplateProps) {
  const { canAdd, disabled, readonly, fieldPathId, uiSchema, items, onAddClick, registry, required, schema, title } = props;
  const uiOptions = getUiOptions(uiSchema);
  const DescriptionFieldTemplate = getTemplate("DescriptionFieldTemplate", registry, uiOptions);
  const { AddButton } = registry.templates.ButtonTemplates;
  const label = uiOptions.title || title;
  const description = uiOptions.description || schema.description;
  const field = useDrawnField();
  const legend = useDrawnLabel(label ?? "");
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
          <NameText name={legend} />
          {required && !field.isItem ? <RequiredMark /> : null}
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
            aria-label={`Add item to ${spokenName(field.name)}`}
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
 * remove). The item is named by its position (arrayItemName: "Target 2", "Steps 2"), after the items
 * enclosing its array ("Target 2 Ports 1"); its fields' names start with it (EnclosingItems) and its
 * buttons name it ("Remove Target 2", "Move Target 2 up"). Names follow the item when it moves.
 */
export function ArrayFieldItemTemplate(props: ArrayFieldItemTemplateProps) {
  const { children, buttonsProps, hasToolbar, index, schema, uiSchema } = props;
  const { hasMoveUp, hasMoveDown, hasCopy, hasRemove, disabled, readonly, onMoveUpItem, onMoveDownItem, onCopyItem, onRemoveItem, fieldPathId } = buttonsProps;
  const inactive = disabled || readonly;
  // The array's field: the template is drawn inside it, and the array is an item when its own path ends in an index.
  const array = useDrawnField();
  const arrayIsItem = typeof fieldPathId.path[fieldPathId.path.length - 2] === "number";
  const enclosing = useEnclosingItems();
  const itemName = arrayItemName({ label: array.name.label, isItem: arrayIsItem }, getUiOptions(uiSchema).title || schema.title, index);
  const items = useMemo(() => [...enclosing, itemName], [enclosing, itemName]);
  const item = spokenName({ items: enclosing, label: itemName });
  return (
    <li className="flex items-start gap-2 rounded-md border border-zinc-200 bg-white p-2">
      <span className="mt-1.5 w-5 shrink-0 text-right font-mono text-[11px] text-zinc-400 tabular-nums" aria-hidden="true">
        {index + 1}
      </span>
      <div className="min-w-0 flex-1">
        <EnclosingItems.Provider value={items}>{children}</EnclosingItems.Provider>
      </div>
      {hasToolbar ? (
        <div className="flex shrink-0 gap-1" role="group" aria-label={`Actions for ${item}`}>
          {hasMoveUp || hasMoveDown ? (
            <>
              <IconButton id={buttonId(fieldPathId, "moveUp")} label={`Move ${item} up`} icon="up" disabled={inactive || !hasMoveUp} onClick={onMoveUpItem} />
              <IconButton id={buttonId(fieldPathId, "moveDown")} label={`Move ${item} down`} icon="down" disabled={inactive || !hasMoveDown} onClick={onMoveDownItem} />
            </>
          ) : null}
          {hasCopy ? <IconButton id={buttonId(fieldPathId, "copy")} label={`Duplicate ${item}`} icon="copy" disabled={inactive} onClick={onCopyItem} /> : null}
          {hasRemove ? <IconButton id={buttonId(fieldPathId, "remove")} label={`Remove ${item}`} icon="remove" disabled={inactive} onClick={onRemoveItem} /> : null}
        </div>
      ) : null}
    </li>
  );
}
