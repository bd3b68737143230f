import type { ReactNode } from "react";
import { cx } from "./class-names";

/** Colour of a badge; meaning is given by the feature that uses it. */
export type BadgeTone = "neutral" | "green" | "amber" | "red" | "blue" | "violet";

const TONES: Record<BadgeTone, { box: string; dot: string }> = {
  neutral: { box: "bg-zinc-100 text-zinc-700 ring-zinc-300/70", dot: "bg-zinc-400" },
  green: { box: "bg-emerald-50 text-emerald-800 ring-emerald-600/25", dot: "bg-emerald-500" },
  amber: { box: "bg-amber-50 text-amber-800 ring-amber-600/30", dot: "bg-amber-500" },
  red: { box: "bg-red-50 text-red-800 ring-red-600/25", dot: "bg-red-500" },
  blue: { box: "bg-blue-50 text-blue-800 ring-blue-600/25", dot: "bg-blue-500" },
  violet: { box: "bg-violet-50 text-violet-800 ring-violet-600/25", dot: "bg-violet-500" },
};

/**
 * A compact label with a tone, an optional leading dot, and `pulse` to animate the dot (for live
 * states). Extra props (e.g. `title`, `data-*`) reach the span.
 */
export function Badge({
  tone = "neutral",
  dot = false,
  pulse = false,
  className,
  children,
  ...rest
}: {
  tone?: BadgeTone;
  dot?: boolean;
  pulse?: boolean;
  className?: string;
  children: ReactNode;
} & React.HTMLAttributes<HTMLSpanElement>) {
  const style = TONES[tone];
  return (
    <span
      className={cx(
        "inline-flex items-center gap-1.5 rounded px-1.5 py-0.5 text-[11px] leading-4 font-medium whitespace-nowrap ring-1 ring-inset",
        style.box,
        className,
      )}
      {...rest}
    >
      {dot || pulse ? (
        <span className="relative inline-flex size-1.5" aria-hidden="true">
          {pulse ? <span className={cx("absolute inline-flex size-full animate-ping rounded-full opacity-75", style.dot)} /> : null}
          <span className={cx("relative inline-flex size-1.5 rounded-full", style.dot)} />
        </span>
      ) : null}
      {children}
    </span>
  );
}
