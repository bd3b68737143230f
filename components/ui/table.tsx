import type { HTMLAttributes, TdHTMLAttributes, ThHTMLAttributes } from "react";
import { cx } from "./class-names";

/**
 * A full-width dense table in a horizontally scrollable wrapper, with a shadow at the edge that has more
 * columns beyond it (at 390 px the actions column is often off to the right); `caption` is for screen readers.
 */
export function Table({ caption, className, children }: { caption: string; className?: string; children: React.ReactNode }) {
  return (
    <div className={cx("scroll-shadow-x relative overflow-x-auto", className)}>
      <table className="w-full border-collapse text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        {children}
      </table>
    </div>
  );
}

/** A header cell (scope=col by default). */
export function Th({ className, ...rest }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      scope="col"
      className={cx("border-b border-zinc-200 bg-zinc-50 px-3 py-2 text-[11px] font-medium tracking-wide whitespace-nowrap text-zinc-500 uppercase", className)}
      {...rest}
    />
  );
}

/** A body cell. */
export function Td({ className, ...rest }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={cx("border-b border-zinc-100 px-3 py-2 align-middle text-zinc-800", className)} {...rest} />;
}

/** A body row that highlights on hover. */
export function Tr({ className, ...rest }: HTMLAttributes<HTMLTableRowElement>) {
  return <tr className={cx("hover:bg-zinc-50", className)} {...rest} />;
}
