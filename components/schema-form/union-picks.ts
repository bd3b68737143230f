import type { RJSFSchema } from "@rjsf/utils";
import { createContext, useContext } from "react";
import { isSchemaNode } from "./chosen-branches";

/** The anyOf/oneOf option picked in each union picker of a form, by the union field's id (see ChosenOptions). */
export const UnionPicks = createContext<Map<string, number> | null>(null);

const PICKER_ID = /__(oneof|anyof)_select$/;

/**
 * For the select widget with id `id`: a function that records the option it shows or was set to,
 * when it is a union's picker ("root_x__oneof_select" records under "root_x"), so the form validates
 * the branch the person sees (createArgsValidator); a no-op for any other select.
 */
export function useRecordUnionPick(id: string): (option: unknown) => void {
  const picks = useContext(UnionPicks);
  return (option: unknown) => {
    if (picks && PICKER_ID.test(id) && typeof option === "number") picks.set(id.replace(PICKER_ID, ""), option);
  };
}

/** The id rjsf gives the option picker of the union field `fieldId` ("root_x" → "root_x__oneof_select"). */
export function unionPickerId(fieldId: string, schema: RJSFSchema): string {
  return `${fieldId}${schema.oneOf ? "__oneof_select" : "__anyof_select"}`;
}

/**
 * True when each option of the union is titled by its JSON type alone ("string", "array", "null"): a
 * union type spelled as an anyOf by toFormSchema, or an anyOf of bare types, whose picker picks a type.
 */
function picksType(schema: RJSFSchema): boolean {
  const options = (schema.oneOf ?? schema.anyOf ?? []) as unknown[];
  return (
    options.length > 1 &&
    options.every((option) => isSchemaNode(option) && (typeof option.type === "string" ? option.title === option.type : "const" in option && option.const === null && option.title === "null"))
  );
}

/**
 * The accessible name of the option picker of the union field labelled `label`: the label and what
 * the picker picks — "Tags: type" for a union of types, "Source: option" for any other anyOf/oneOf —
 * as the field's other buttons name it ("Clear Tags", "Set Tags to null").
 */
export function unionPickerName(label: string, schema: RJSFSchema): string {
  return `${label}: ${picksType(schema) ? "type" : "option"}`;
}

/** The picker the union field being drawn names (see FieldTemplate): its id and accessible name. */
export const UnionPicker = createContext<{ id: string; name: string } | null>(null);

/** The accessible name of the select `id` when it is the picker of the union being drawn, else undefined. */
export function useUnionPickerName(id: string): string | undefined {
  const picker = useContext(UnionPicker);
  return picker?.id === id ? picker.name : undefined;
}
