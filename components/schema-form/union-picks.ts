import { createContext, useContext } from "react";

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
