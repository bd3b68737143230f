/** What a secret's value is replaced with wherever it appears (DESIGN.md "Skill secrets"). */
export const SECRET_MASK = "•••";

/** Shortest piece of a multi-line value masked on its own, in characters (a line of "}" is no secret). */
const MIN_PIECE_LENGTH = 4;

/**
 * The texts under which `value` may show up in what a call writes: the value itself; its JSON-escaped
 * form (a result is JSON, so a value holding a quote or a backslash appears escaped); and each line of
 * a multi-line value (the timeline is read line by line, so a PEM key is masked line by line), each at
 * least MIN_PIECE_LENGTH characters. Pure.
 */
export function secretForms(value: string): string[] {
  const forms = new Set<string>();
  if (value !== "") forms.add(value);
  const escaped = JSON.stringify(value).slice(1, -1);
  if (escaped !== value) forms.add(escaped);
  for (const line of value.split(/\r?\n|\r/)) if (line.trim().length >= MIN_PIECE_LENGTH) forms.add(line);
  for (const line of escaped.split(/\\r\\n|\\n|\\r/)) if (line.trim().length >= MIN_PIECE_LENGTH) forms.add(line);
  return [...forms];
}

/** Escapes `text` for use inside a RegExp. Pure. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A function that replaces every occurrence of any of `values` (and their secretForms) in a text with
 * SECRET_MASK, longest form first so a value that contains another is masked whole. With no values it
 * returns texts unchanged. Used by the worker on every timeline line, the result and the error before
 * they leave it, so the console never stores a secret's value. Pure.
 */
export function secretMasker(values: readonly string[]): (text: string) => string {
  const forms = [...new Set(values.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  const pattern = new RegExp(forms.map(escapeRegExp).join("|"), "g");
  return (text) => (text === "" ? text : text.replace(pattern, SECRET_MASK));
}
