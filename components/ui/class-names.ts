/** Joins the truthy class names of `parts` with single spaces (false, null and undefined are skipped). */
export function cx(...parts: (string | false | null | undefined)[]): string {
  return parts.filter(Boolean).join(" ");
}
