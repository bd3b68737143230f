/**
 * The one mark for "no value" across the console: a muted em dash in the surrounding font. `label`
 * says why there is none (tooltip and screen readers), e.g. "not ended yet".
 */
export function EmptyValue({ label = "none" }: { label?: string }) {
  return (
    <span className="font-sans text-zinc-400" title={label} aria-label={label}>
      —
    </span>
  );
}
