import type { ReactNode } from "react";

/** A keyboard key hint, e.g. <Kbd>/</Kbd>. */
export function Kbd({ children }: { children: ReactNode }) {
  return (
    <kbd className="inline-flex h-5 min-w-5 items-center justify-center rounded border border-zinc-300 bg-zinc-50 px-1 font-mono text-[11px] text-zinc-500">
      {children}
    </kbd>
  );
}
