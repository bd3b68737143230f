import { cx } from "./class-names";

/**
 * A read-only monospace block for preformatted text (JSON, logs). `className` can cap its height (it
 * scrolls); `label` names the region for assistive tech; `wrap` wraps long lines (a 50,000-character
 * string in args) instead of scrolling sideways.
 */
export function CodeBlock({ text, label, className, wrap = false, ...rest }: { text: string; label?: string; className?: string; wrap?: boolean } & React.HTMLAttributes<HTMLPreElement>) {
  return (
    <pre
      aria-label={label}
      tabIndex={0}
      className={cx(
        "overflow-auto rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2.5 font-mono text-[12.5px] leading-5 text-zinc-800",
        wrap ? "whitespace-pre-wrap [overflow-wrap:anywhere]" : "whitespace-pre",
        "focus-visible:outline-2 focus-visible:outline-blue-600",
        className,
      )}
      {...rest}
    >
      {text}
    </pre>
  );
}
