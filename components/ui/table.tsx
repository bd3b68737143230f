import type { HTMLAttributes, ReactNode, TdHTMLAttributes, ThHTMLAttributes } from "react";
import { cx } from "./class-names";

/*
 * One table pattern for every width (issue 14 point 5). From md (768 px) up it is a dense table in a
 * horizontally scrollable frame. Below md it stacks: the header row stays for screen readers only, each
 * row becomes a block and each cell a "label · value" line, so a phone never scrolls a table sideways.
 * The display changes drop a table's native semantics in some browsers: the explicit ARIA roles keep
 * rows, cells and column headers announced as such, so each cell is still named by its column header.
 */

/**
 * A full-width dense table with a screen-reader `caption`. From md up it sits in a horizontally scrollable
 * frame with a shadow at the edge that has more columns beyond it; below md its rows stack (see `Td`'s
 * `label`). Children: one `TableHead` and one `TableBody`.
 */
export function Table({ caption, className, children }: { caption: string; className?: string; children: ReactNode }) {
  return (
    <div data-table-frame="" className={cx("relative overflow-x-auto md:scroll-shadow-x", className)}>
      <table role="table" className="w-full border-collapse text-left text-sm max-md:block">
        <caption className="sr-only">{caption}</caption>
        {children}
      </table>
    </div>
  );
}

/** The header row of a `Table`, holding its `Th` cells; below md it is read by screen readers only. */
export function TableHead({ children }: { children: ReactNode }) {
  return (
    <thead role="rowgroup" className="max-md:sr-only">
      <tr role="row">{children}</tr>
    </thead>
  );
}

/** The body of a `Table`, holding its `Tr` rows. */
export function TableBody({ children }: { children: ReactNode }) {
  return (
    <tbody role="rowgroup" className="max-md:block">
      {children}
    </tbody>
  );
}

/** A header cell (scope=col by default). */
export function Th({ className, ...rest }: ThHTMLAttributes<HTMLTableCellElement>) {
  return (
    <th
      scope="col"
      role="columnheader"
      className={cx("border-b border-zinc-200 bg-zinc-50 px-3 py-2 text-[11px] font-medium tracking-wide whitespace-nowrap text-zinc-500 uppercase", className)}
      {...rest}
    />
  );
}

const CELL = "border-b border-zinc-100 px-3 py-2 align-middle text-zinc-800 max-md:max-w-none max-md:min-w-0 max-md:border-0 max-md:py-1 max-md:text-left max-md:whitespace-normal max-md:empty:hidden";

// The stacked label is generated content, not text: it stays out of the cell's text (what tests and copy
// read) and, with its empty alternative text, out of what a screen reader says (the column header names the cell).
const STACKED_LABEL = cx(
  "max-md:grid max-md:grid-cols-[minmax(5.5rem,30%)_minmax(0,1fr)] max-md:items-baseline max-md:gap-x-3",
  "max-md:before:content-[attr(data-label)_/_''] max-md:before:text-[11px] max-md:before:font-sans max-md:before:font-medium max-md:before:tracking-wide max-md:before:text-zinc-500 max-md:before:uppercase",
);

/**
 * A body cell. `label` (the column's header text) heads the cell's line when the rows stack below md;
 * a cell without one (an actions cell) spans the stacked row's width, and an empty one is left out.
 * Below md the cell's value is left-aligned and wraps, whatever alignment `className` gives it from md up.
 */
export function Td({ label, className, children, ...rest }: TdHTMLAttributes<HTMLTableCellElement> & { label?: string }) {
  if (!label) {
    return (
      <td role="cell" className={cx(CELL, "max-md:block", className)} {...rest}>
        {children}
      </td>
    );
  }
  return (
    <td role="cell" data-label={label} className={cx(CELL, STACKED_LABEL, className)} {...rest}>
      <div className="min-w-0 max-md:[overflow-wrap:anywhere]">{children}</div>
    </td>
  );
}

/** A body row that highlights on hover; below md a block with a rule under it. */
export function Tr({ className, ...rest }: HTMLAttributes<HTMLTableRowElement>) {
  return <tr role="row" className={cx("hover:bg-zinc-50 max-md:block max-md:border-b max-md:border-zinc-200 max-md:py-2", className)} {...rest} />;
}
