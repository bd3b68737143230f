import { cx } from "./class-names";

/** A grey pulsing block standing in for content while it loads; size it with `className`. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cx("animate-pulse rounded bg-zinc-200/80", className)} />;
}

/** `rows` skeleton lines of decreasing width, for lists and tables; announced once as loading. */
export function SkeletonRows({ rows = 5, className }: { rows?: number; className?: string }) {
  return (
    <div role="status" aria-label="Loading" className={cx("space-y-2.5", className)}>
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} className={cx("h-4", index % 3 === 0 ? "w-3/4" : index % 3 === 1 ? "w-full" : "w-5/6")} />
      ))}
    </div>
  );
}
