"use client";

import { useEffect, useState } from "react";
import { formatDuration } from "@/lib/client/format-time";

/** A duration that counts up from `since` (ISO-8601) every 100 ms while mounted; an em dash when `since` is null. */
export function ElapsedTime({ since }: { since: string | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  if (!since) return <>—</>;
  return <>{formatDuration(now - new Date(since).getTime())}</>;
}
