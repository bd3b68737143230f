"use client";

import { CopyButton } from "./copy-button";

/**
 * A secret shown once (a token just created): a read-only field that selects itself on focus, and a
 * Copy button named `copyLabel` (default "Copy token"). `label` names the field for screen readers;
 * `testId` is the field's data-testid.
 */
export function OneTimeSecret({ value, label, testId, copyLabel = "Copy token" }: { value: string; label: string; testId: string; copyLabel?: string }) {
  return (
    <div className="mt-1 flex flex-col gap-2 sm:flex-row sm:items-center">
      <input
        readOnly
        aria-label={label}
        value={value}
        onFocus={(event) => event.currentTarget.select()}
        className="h-8 w-full min-w-0 rounded-md border border-amber-300 bg-white px-2.5 font-mono text-[13px] text-zinc-900 focus:ring-2 focus:ring-blue-500/20 focus:outline-none sm:flex-1"
        data-testid={testId}
      />
      <span className="shrink-0">
        <CopyButton size="sm" label={copyLabel} getText={() => value} />
      </span>
    </div>
  );
}
