"use client";

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type HTMLAttributes, type ReactNode } from "react";

/** Rows rendered beyond each edge of the viewport, so a quick scroll shows no blank band. */
const DEFAULT_OVERSCAN = 8;

/** Props of MeasuredList; any other div attribute (role, aria-*, className…) goes on the outer element. */
export interface MeasuredListProps extends Omit<HTMLAttributes<HTMLDivElement>, "children"> {
  /** Number of rows. */
  count: number;
  /** Height in px assumed for a row not measured yet (its real height replaces it once it is drawn). */
  estimateHeight: number;
  /** Renders row `index`, at its natural height. */
  renderRow: (index: number) => ReactNode;
  /** Key of row `index`: its measured height is kept under it (keep the function stable: useCallback). */
  rowKey: (index: number) => string | number;
  overscan?: number;
}

/** Index of the last row whose top (`offsets[index]`) is at or above `y`, by binary search over the prefix sums. */
function rowAt(offsets: Float64Array, count: number, y: number): number {
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (offsets[middle]! <= y) low = middle;
    else high = middle - 1;
  }
  return Math.max(0, low);
}

/**
 * A windowed list of `count` rows of any height that the page scrolls: only the rows in view (plus
 * `overscan` each side) are in the DOM, absolutely placed at the sum of the heights above them. A row
 * is assumed `estimateHeight` until drawn, then measured (ResizeObserver), so a row that grows — an
 * entry whose details are expanded, a row stacked into a block on a narrow screen — pushes the rows
 * below it down instead of overlapping them. Heights are kept by `rowKey` and forgotten when the
 * list's width changes (rows wrap differently); a row above the viewport that changes height moves
 * the page by as much, so what is on screen stays put. 100,000 rows cost one pass of additions per
 * measured change and a binary search per scroll.
 */
export function MeasuredList({ count, estimateHeight, renderRow, rowKey, overscan = DEFAULT_OVERSCAN, ...rest }: MeasuredListProps) {
  const outer = useRef<HTMLDivElement | null>(null);
  const heights = useRef(new Map<string | number, number>());
  const [measured, setMeasured] = useState(0);
  const [range, setRange] = useState({ start: 0, end: Math.min(count, 30) });
  const rowKeyRef = useRef(rowKey);
  rowKeyRef.current = rowKey;

  const offsets = useMemo(() => {
    const sums = new Float64Array(count + 1);
    for (let index = 0; index < count; index++) sums[index + 1] = sums[index]! + (heights.current.get(rowKey(index)) ?? estimateHeight);
    return sums;
    // `measured` is listed because it counts the changes to `heights`, which a ref cannot announce.
  }, [count, rowKey, estimateHeight, measured]);
  const offsetsRef = useRef(offsets);
  offsetsRef.current = offsets;

  const measure = useCallback(() => {
    const el = outer.current;
    if (!el || count === 0) return;
    const top = -el.getBoundingClientRect().top;
    const start = Math.max(0, rowAt(offsets, count, top) - overscan);
    const end = Math.min(count, rowAt(offsets, count, top + window.innerHeight) + 1 + overscan);
    setRange((current) => (current.start === start && current.end === end ? current : { start, end }));
  }, [offsets, count, overscan]);

  useLayoutEffect(measure, [measure]);

  useEffect(() => {
    window.addEventListener("scroll", measure, { passive: true });
    window.addEventListener("resize", measure);
    return () => {
      window.removeEventListener("scroll", measure);
      window.removeEventListener("resize", measure);
    };
  }, [measure]);

  // A new width wraps rows differently: every kept height is stale.
  useEffect(() => {
    const el = outer.current;
    if (!el) return;
    let width = el.clientWidth;
    const observer = new ResizeObserver(() => {
      if (el.clientWidth === width) return;
      width = el.clientWidth;
      heights.current.clear();
      setMeasured((value) => value + 1);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const [rowObserver] = useState(() =>
    typeof ResizeObserver === "undefined"
      ? null
      : new ResizeObserver((entries) => {
          let changed = false;
          let shiftAbove = 0;
          const listTop = outer.current ? -outer.current.getBoundingClientRect().top : 0;
          for (const entry of entries) {
            const el = entry.target as HTMLElement;
            const index = Number(el.dataset.index);
            const height = entry.borderBoxSize[0]?.blockSize ?? el.offsetHeight;
            const key = rowKeyRef.current(index);
            const before = heights.current.get(key) ?? estimateHeight;
            if (heights.current.get(key) === height) continue;
            heights.current.set(key, height);
            changed = true;
            if ((offsetsRef.current[index] ?? 0) + before <= listTop) shiftAbove += height - before;
          }
          if (!changed) return;
          setMeasured((value) => value + 1);
          if (shiftAbove !== 0) window.scrollBy(0, shiftAbove);
        }),
  );

  // Each drawn row is observed while it is in the DOM (the ref's cleanup stops it), so nothing is left to disconnect.
  const observeRow = useCallback(
    (el: HTMLDivElement | null) => {
      if (!el || !rowObserver) return;
      rowObserver.observe(el);
      return () => rowObserver.unobserve(el);
    },
    [rowObserver],
  );

  const rows: ReactNode[] = [];
  for (let index = range.start; index < Math.min(range.end, count); index++) {
    rows.push(
      <div key={rowKey(index)} ref={observeRow} data-index={index} className="absolute inset-x-0" style={{ top: offsets[index] }}>
        {renderRow(index)}
      </div>,
    );
  }

  return (
    <div {...rest} ref={outer}>
      <div className="relative" style={{ height: offsets[count] }}>
        {rows}
      </div>
    </div>
  );
}
