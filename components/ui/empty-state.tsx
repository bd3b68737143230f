import type { ReactNode } from "react";
import { cx } from "./class-names";

/** A centred message for an empty list: a title, an explanation, and optional actions. */
export function EmptyState({ title, children, actions, className }: { title: ReactNode; children?: ReactNode; actions?: ReactNode; className?: string }) {
  return (
    <div className={cx("rounded-lg border border-dashed border-zinc-300 bg-white px-6 py-10 text-center", className)}>
      <p className="text-sm font-semibold text-zinc-900">{title}</p>
      {children ? <div className="mx-auto mt-2 max-w-xl text-sm text-zinc-600">{children}</div> : null}
      {actions ? <div className="mt-4 flex justify-center gap-2">{actions}</div> : null}
    </div>
  );
}
