import type { ReactNode } from "react";
import { cx } from "./class-names";

/** One term and its value in a DescriptionList. */
export interface DescriptionItem {
  term: string;
  value: ReactNode;
  /** Spans the whole row (for long values such as paths). */
  wide?: boolean;
}

const COLUMNS = {
  2: "grid-cols-2",
  4: "grid-cols-2 sm:grid-cols-3 lg:grid-cols-4",
  6: "grid-cols-2 sm:grid-cols-3 lg:grid-cols-6",
} as const;

/**
 * A dense grid of term/value pairs (a `<dl>`). `columns` is the count on wide screens (default 4);
 * narrower screens get fewer.
 */
export function DescriptionList({ items, columns = 4, className }: { items: DescriptionItem[]; columns?: keyof typeof COLUMNS; className?: string }) {
  return (
    <dl className={cx("grid gap-x-6 gap-y-3", COLUMNS[columns], className)}>
      {items.map((item) => (
        <div key={item.term} className={cx("min-w-0", item.wide && "col-span-full")}>
          <dt className="text-[11px] font-medium tracking-wide text-zinc-500 uppercase">{item.term}</dt>
          <dd className="mt-0.5 text-sm break-words text-zinc-900">{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}
