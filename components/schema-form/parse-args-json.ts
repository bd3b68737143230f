/** Outcome of parsing the raw args text: the object, or why not with a 1-based line and column. */
export type ParsedArgs =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; kind: "syntax" | "not_object"; message: string; line: number; column: number; position: number };

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const lines = before.split("\n");
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/**
 * Parses the Raw JSON editor's text as the args object. A syntax error reports where it is (line,
 * column, 0-based `position`) with the engine's reason; valid JSON that is not an object (an array,
 * a number, null) is refused too, since a skill's args are always an object.
 */
export function parseArgsJson(text: string): ParsedArgs {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    const match = /at position (\d+)/.exec(raw);
    const position = match?.[1] !== undefined ? Number(match[1]) : text.length;
    const reason = raw
      .replace(/\s*in JSON at position \d+.*$/s, "")
      .replace(/^JSON\.parse: /, "")
      .trim();
    return { ok: false, kind: "syntax", message: reason || "Invalid JSON", position, ...lineAndColumn(text, position) };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { ok: false, kind: "not_object", message: `Args must be a JSON object ({ … }), not ${kind}`, position: 0, line: 1, column: 1 };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** The args object as the Raw JSON editor shows it: two-space indented JSON. */
export function formatArgsJson(args: Record<string, unknown>): string {
  return JSON.stringify(args, null, 2);
}
