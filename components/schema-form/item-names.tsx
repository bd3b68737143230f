import { createContext, useContext } from "react";

/**
 * A field's name as a screen reader or voice control meets it: `label`, the label the person sees
 * ("Host", or an array item's name "Target 2"), after `items`, the names of the array items that
 * enclose the field, outermost first (["Target 2"]), which only screen readers hear (see NameText).
 * Items of one array are drawn alike; their position in `items` tells their fields apart.
 */
export interface FieldName {
  items: readonly string[];
  label: string;
}

/** `name` as one string, the enclosing items first: { items: ["Target 2"], label: "Port" } → "Target 2 Port". */
export function spokenName(name: FieldName): string {
  return [...name.items, name.label].join(" ");
}

/**
 * The name of item `index` (from 0) of an array: the item schema's `itemTitle` when it has one, else
 * the array's `arrayLabel`, then the item's position from 1 — "Target 2" (items titled Target), "Steps 2"
 * (untitled items of Steps). An array that is itself an item (`arrayIsItem`: its label is already an
 * item's name, "Matrix 1") calls its untitled items "item": "item 2", heard as "Matrix 1 item 2".
 */
export function arrayItemName(array: { label: string; isItem: boolean }, itemTitle: string | undefined, index: number): string {
  const base = itemTitle || (array.isItem ? "item" : array.label);
  return `${base} ${index + 1}`;
}

/** The names of the array items enclosing what is being drawn, outermost first; ArrayFieldItemTemplate adds its item's. */
export const EnclosingItems = createContext<readonly string[]>([]);

/** The EnclosingItems of the control being drawn ([] outside any array item). */
export function useEnclosingItems(): readonly string[] {
  return useContext(EnclosingItems);
}

/**
 * The text of a label or legend naming `name`: the enclosing items for screen readers only, then the
 * label as shown (a legend "Ports" inside the second Target is heard "Target 2 Ports").
 */
export function NameText({ name }: { name: FieldName }) {
  return (
    <>
      {name.items.length > 0 ? <span className="sr-only">{`${name.items.join(" ")} `}</span> : null}
      {name.label}
    </>
  );
}
