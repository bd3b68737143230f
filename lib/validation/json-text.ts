/**
 * A JSON value carried as its text, not parsed (issue 10 point 1): a call's args arrive this way from
 * the request body (readJsonBody's `keepText`) and go to the validation thread, which parses,
 * validates and canonicalizes them off the main thread, so that megabytes of args never become
 * millions of objects in the console's event loop. `text` is the value exactly as the client sent it
 * (possibly with trailing whitespace; not yet known to be valid JSON).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * A JSON array carried as its text with the offsets that separate its items (JsonShapeScanner
 * `captureItems`), so that a list of tens of thousands of objects is parsed a slice at a time, the
 * event loop free between slices, rather than by one JSON.parse of megabytes (issue 10 point 1: a
 * worker's 50,000-skill registration held the event loop 91 ms in JSON.parse alone). `bytes` is the
 * whole body's; `bounds` are offsets into it: the `[`, each separating comma, the `]`.
 */
export class JsonListText {
  constructor(
    private readonly bytes: Buffer,
    private readonly bounds: readonly number[],
  ) {}

  /** How many items the array holds (an array of only whitespace holds none). */
  get length(): number {
    if (this.bounds.length === 2 && this.bytes.subarray(this.bounds[0]! + 1, this.bounds[1]).toString("latin1").trim() === "") return 0;
    return this.bounds.length - 1;
  }

  /** Bytes of the text of items `[from, to)` (0 ≤ from ≤ to ≤ length), separators included. */
  bytesOf(from: number, to: number): number {
    return this.bounds[to]! - this.bounds[from]!;
  }

  /**
   * Parses items `[from, to)` (0 ≤ from < to ≤ length). Returns them. Throws SyntaxError for text that
   * is not JSON, and for a slice that parses to another number of items than its bounds hold (a
   * trailing or doubled comma, which the scanner cannot tell from a separator), so the slices of a
   * list all parse only when the whole array would.
   */
  parse(from: number, to: number): unknown[] {
    const text = `[${this.bytes.subarray(this.bounds[from]! + 1, this.bounds[to]).toString("utf8")}]`;
    const items = JSON.parse(text) as unknown;
    if (!Array.isArray(items) || items.length !== to - from) throw new SyntaxError(`items ${from}–${to - 1} of the list are not ${to - from} JSON values separated by commas`);
    return items;
  }
}
