import { cx } from "@/components/ui/class-names";

/** The active category filter of the skills list as a chip (`category: system`) with a remove button. */
export function CategoryChip({ category, onRemove, className }: { category: string; onRemove: () => void; className?: string }) {
  return (
    <span
      className={cx("inline-flex h-7 items-center gap-1 rounded-full border border-zinc-300 bg-white pr-1 pl-3 text-xs text-zinc-700 shadow-xs", className)}
      data-testid="category-chip"
    >
      <span className="text-zinc-500">category:</span>{" "}
      <span className="font-medium text-zinc-900">{category}</span>
      <button
        type="button"
        onClick={onRemove}
        aria-label={`Remove the category filter ${category}`}
        title="Show every category"
        className="ml-0.5 inline-flex size-5 items-center justify-center rounded-full text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-600"
      >
        <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
          <path d="M4 4l8 8M12 4l-8 8" />
        </svg>
      </button>
    </span>
  );
}
