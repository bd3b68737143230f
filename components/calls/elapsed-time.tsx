"use client";

import { useEffect, useState } from "react";
import { EmptyValue } from "@/components/ui/empty-value";
import { formatDuration } from "@/lib/client/format-time";

/** A duration that counts up from `since` (ISO-8601) every 100 ms while mounted; the empty mark when `since` is null. */
export function ElapsedTime({ since }: { since: string | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  if (!since) return <EmptyValue label="not started" />;
  return <>{formatDuration(now - new Date(since).getTime())}</>;
}
