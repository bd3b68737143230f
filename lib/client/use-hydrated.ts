"use client";

import { useSyncExternalStore } from "react";

/** Whether the page has hydrated never changes once it has: there is nothing to subscribe to. */
function subscribe(): () => void {
  return () => {};
}

/**
 * Whether React has hydrated the calling component: false on the server and while hydrating (the
 * server's snapshot), true from the render right after (React re-renders when the browser's snapshot
 * differs) and at once in components first rendered in the browser. Takes nothing; returns a boolean.
 * Until it is true the browser shows server-rendered controls that run no handler and whose input React
 * does not see: components/ui's controls stay disabled until then (useHydrationGate).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
