"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";

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
      <div className="mt-1 flex flex-wrap items-center gap-2">
        <input
          readOnly
          aria-label="New API token"
          value={token}
          onFocus={(event) => event.currentTarget.select()}
          className="h-8 min-w-0 flex-1 rounded-md border border-amber-300 bg-white px-2.5 font-mono text-[13px] text-zinc-900 focus:ring-2 focus:ring-blue-500/20 focus:outline-none"
          data-testid="new-token"
        />
        <CopyButton size="sm" label="Copy token" getText={() => token} />
      </div>
    </Alert>
  );
}
