"use client";

import { useEffect, useState } from "react";

/** The current time (ms epoch), re-read every `intervalMs` (default 1000) while mounted, for ticking ages and countdowns. */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
