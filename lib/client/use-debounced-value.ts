"use client";

import { useEffect, useState } from "react";

/** Returns `value` once it has stayed unchanged for `delayMs` milliseconds (the first value at once). */
export function useDebouncedValue<T>(value: T, delayMs: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return debounced;
}
