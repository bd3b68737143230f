import { cx } from "./class-names";

/**
 * A read-only monospace block for preformatted text (JSON, logs). `maxHeight` caps it with a scroll;
 * `label` names the region for assistive tech.
 */
export function CodeBlock({ text, label, className, ...rest }: { text: string; label?: string; className?: string } & React.HTMLAttributes<HTMLPreElement>) {
  return (
    <pre
      aria-label={label}
      tabIndex={0}
      className={cx(
        "overflow-auto rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2.5 font-mono text-[12.5px] leading-5 whitespace-pre text-zinc-800",
        "focus-visible:outline-2 focus-visible:outline-blue-600",
        className,
      )}
      {...rest}
    >
      {text}
    </pre>
  );
}
