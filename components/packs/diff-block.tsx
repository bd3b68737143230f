import { cx } from "@/components/ui/class-names";

/** The colour of one line of a unified diff: added, removed, a hunk header, a file header, or context. */
function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "text-zinc-500";
  if (line.startsWith("@@")) return "text-blue-700";
  if (line.startsWith("+")) return "bg-emerald-50 text-emerald-900";
  if (line.startsWith("-")) return "bg-red-50 text-red-900";
  return "";
}

/**
 * A unified diff (or a sentence describing a change) as a scrollable monospace block, added lines
 * green, removed lines red, hunk headers blue; `label` names it for assistive tech. The block scrolls
 * on its own (a long line never widens the page).
 */
export function DiffBlock({ text, label, className }: { text: string; label: string; className?: string }) {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return (
    <pre
      aria-label={label}
      tabIndex={0}
      className={cx(
        "overflow-auto rounded-md border border-zinc-200 bg-zinc-50 py-2 font-mono text-[12.5px] leading-5 whitespace-pre text-zinc-800 focus-visible:outline-2 focus-visible:outline-blue-600",
        className,
      )}
    >
      {lines.map((line, index) => (
        <span key={index} className={cx("block min-w-max px-3", lineClass(line))}>
          {line === "" ? " " : line}
        </span>
      ))}
    </pre>
  );
}
