import { createContext, useContext } from "react";

/** What decides which fields show their errors: whether Run was tried, and the fields that lost focus. */
export interface ErrorVisibility {
  attempted: boolean;
  touched: ReadonlySet<string>;
}

/** The id of the field a control belongs to: a union's picker ("root_x__oneof_select") belongs to the union ("root_x"). */
function fieldIdOfControl(id: string): string {
  return id.replace(/__(oneof|anyof)_select$/, "");
}

/**
 * True when the field `id` shows its errors (issue 14 point 4: errors show on blur, next to the field):
 * once Run was tried, every field does; before that, a field does once it or a field inside it (an
 * object's property, a union's picker or option, an array's item) has lost focus.
 */
export function errorsShownFor(visibility: ErrorVisibility, id: string): boolean {
  if (visibility.attempted) return true;
  const field = fieldIdOfControl(id);
  for (const touched of visibility.touched) {
    const control = fieldIdOfControl(touched);
    if (control === field || control.startsWith(`${field}_`)) return true;
  }
  return false;
}

/** Outside a SchemaForm (a template drawn on its own) every error shows. */
const ErrorVisibilityContext = createContext<ErrorVisibility>({ attempted: true, touched: new Set() });

/** Provides the form's ErrorVisibility to its templates and widgets. */
export const ErrorVisibilityProvider = ErrorVisibilityContext.Provider;

/** True when the field or control `id` shows its errors now (see errorsShownFor). */
export function useErrorsShown(id: string): boolean {
  return errorsShownFor(useContext(ErrorVisibilityContext), id);
}
