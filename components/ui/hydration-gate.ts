"use client";

import { useHydrated } from "@/lib/client/use-hydrated";

/** What a control renders with until its page has hydrated (see useHydrationGate). */
export interface HydrationGate {
  /** The control's own `disabled`, or true while the page is not hydrated. */
  disabled: boolean;
  /** The control's React key: changes once, on hydration, for a server-rendered `autoFocus` control. */
  key: string | undefined;
}

/**
 * Keeps a server-rendered control unusable until React has hydrated it. Before then the browser
 * accepts typing that React never sees (a controlled field goes on showing it while its form sends the
 * state, or a re-render wipes it) and a click runs no handler (a submit button submits the form
 * natively: a GET carrying every named field, passwords included, in the address). Takes the control's
 * own `disabled` and `autoFocus`; returns `disabled` (true until hydrated) and a `key`. The browser's
 * autofocus skips a disabled control and React never focuses a hydrated one, so a server-rendered
 * `autoFocus` control is mounted afresh once live (the key changes), and React focuses it then.
 */
export function useHydrationGate(disabled: boolean | undefined, autoFocus: boolean | undefined): HydrationGate {
  const hydrated = useHydrated();
  return { disabled: Boolean(disabled) || !hydrated, key: autoFocus && !hydrated ? "server-rendered" : undefined };
}
