/**
 * Class names shared by every text-like form control (inputs, selects, textareas), here and in the
 * schema form's templates, so all controls look and focus alike. `invalid` adds the error border.
 */
export function controlClass(invalid = false): string {
  return [
    "block w-full rounded-md border bg-white px-2.5 py-1.5 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-400",
    "focus:outline-none focus:ring-2 disabled:cursor-not-allowed disabled:bg-zinc-50 disabled:text-zinc-500",
    invalid ? "border-red-500 focus:border-red-500 focus:ring-red-500/20" : "border-zinc-300 focus:border-blue-500 focus:ring-blue-500/20",
  ].join(" ");
}
