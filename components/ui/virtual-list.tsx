"use client";

import { useCallback, useEffect, useLayoutEffect, useRef, useState, type HTMLAttributes, type ReactNode, type Ref } from "react";

/** Rows rendered beyond each edge of the viewport, so a quick scroll shows no blank band. */
const DEFAULT_OVERSCAN = 12;

/** The window of rows to render: `[start, end)` indexes. */
interface RowRange {
  start: number;
  end: number;
}

function rangeFor(scrollTop: number, viewport: number, count: number, rowHeight: number, overscan: number): RowRange {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const last = Math.ceil((Math.max(0, scrollTop) + viewport) / rowHeight);
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + overscan) };
}

function assignRef<T>(ref: Ref<T> | undefined, value: T | null) {
  if (typeof ref === "function") ref(value);
  else if (ref) (ref as { current: T | null }).current = value;
}

/** Props of VirtualList; any other div attribute (role, aria-*, className, onScroll…) goes on the outer element. */
export interface VirtualListProps extends Omit<HTMLAttributes<HTMLDivElement>, "children"> {
  /** Number of rows. */
  count: number;
  /** Height of every row in px (fixed: that is what makes the window arithmetic O(1)). */
  rowHeight: number;
  /** Renders row `index`; the element is placed in an absolutely positioned slot of rowHeight px. */
  renderRow: (index: number) => ReactNode;
  /** Key of row `index` (defaults to the index). */
  rowKey?: (index: number) => string | number;
  /** `self`: the list is its own scroll box (give it a height); `window`: the page scrolls it. */
  scroller?: "self" | "window";
  overscan?: number;
  /** Receives the outer element (the scroll box in `self` mode). */
  outerRef?: Ref<HTMLDivElement>;
  /** Content drawn after the rows (e.g. an empty-state line), inside the outer element. */
  footer?: ReactNode;
}

/**
 * A windowed list of `count` fixed-height rows: only the rows in view (plus `overscan` each side) are
 * in the DOM, absolutely positioned in a spacer of `count × rowHeight` px, so 200,000 rows cost as
 * much as 60. Scrolls itself (`scroller="self"`) or follows the page's scroll (`"window"`).
 */
export function VirtualList({ count, rowHeight, renderRow, rowKey, scroller = "self", overscan = DEFAULT_OVERSCAN, outerRef, footer, onScroll, ...rest }: VirtualListProps) {
  const outer = useRef<HTMLDivElement | null>(null);
  const [range, setRange] = useState<RowRange>(() => ({ start: 0, end: Math.min(count, 40 + overscan) }));

  const measure = useCallback(() => {
    const el = outer.current;
    if (!el) return;
    const next =
      scroller === "self"
        ? rangeFor(el.scrollTop, el.clientHeight, count, rowHeight, overscan)
        : rangeFor(-el.getBoundingClientRect().top, window.innerHeight, count, rowHeight, overscan);
    setRange((current) => (current.start === next.start && current.end === next.end ? current : next));
  }, [scroller, count, rowHeight, overscan]);

  useLayoutEffect(measure, [measure]);

  useEffect(() => {
    const el = outer.current;
    if (!el) return;
    const resize = new ResizeObserver(measure);
    resize.observe(el);
    if (scroller === "window") {
      window.addEventListener("scroll", measure, { passive: true });
      window.addEventListener("resize", measure);
    }
    return () => {
      resize.disconnect();
      window.removeEventListener("scroll", measure);
      window.removeEventListener("resize", measure);
    };
  }, [measure, scroller]);

  const rows: ReactNode[] = [];
  for (let index = range.start; index < Math.min(range.end, count); index++) {
    rows.push(
      <div key={rowKey ? rowKey(index) : index} className="absolute inset-x-0" style={{ top: index * rowHeight, height: rowHeight }}>
        {renderRow(index)}
      </div>,
    );
  }

  return (
    <div
      {...rest}
      ref={(el) => {
        outer.current = el;
        assignRef(outerRef, el);
      }}
      onScroll={(event) => {
        if (scroller === "self") measure();
        onScroll?.(event);
      }}
    >
      <div className="relative" style={{ height: count * rowHeight }}>
        {rows}
      </div>
      {footer}
    </div>
  );
}
