"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { OneTimeSecret } from "@/components/ui/one-time-secret";

/**
 * The secret of a token just created, in a copyable box with the warning that it is shown only now
 * (the console stores only its hash). `onDismiss` forgets it.
 */
export function NewTokenBox({ token, name, persona, onDismiss }: { token: string; name: string; persona: string; onDismiss: () => void }) {
  return (
    <Alert
      tone="warning"
      live
      title={`Token “${name}” created (persona ${persona}). Copy it now: it will not be shown again.`}
      actions={
        <Button size="sm" variant="ghost" onClick={onDismiss}>
          Done
        </Button>
      }
    >
      <OneTimeSecret value={token} label="New API token" testId="new-token" />
    </Alert>
  );
}
