"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

/** The error boundary of the console pages: the message and a retry button (Next.js error file). */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <Alert
      tone="danger"
      title="This page failed to render"
      actions={
        <Button size="sm" onClick={reset}>
          Try again
        </Button>
      }
    >
      {error.message || "Unexpected error."}
      {error.digest ? <span className="ml-1 font-mono text-xs">(digest {error.digest})</span> : null}
    </Alert>
  );
}
