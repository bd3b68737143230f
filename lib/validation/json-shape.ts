/** What a JSON document exceeded: too many values, or nesting too deep. */
export class JsonShapeError extends Error {
  constructor(
    readonly kind: "nodes" | "depth",
    readonly limit: number,
  ) {
    super(kind === "nodes" ? `the JSON document has more than ${limit} values` : `the JSON document nests deeper than ${limit} levels`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Counts the values (objects, arrays, strings, numbers, literals; object keys are not values) and the
 * nesting depth of a JSON document as its bytes stream in, before anything parses it (issue 10 point 1:
 * one 8 MB body of 2.7 million `{}` froze the console for 18 s in parsing, garbage collection and the
 * digest; the byte limit alone does not bound the number of values). `push` throws JsonShapeError at
 * the first byte past `maxNodes` values or `maxDepth` levels, so the rest of the body need not even be
 * read. Works on UTF-8 bytes (no multi-byte sequence contains an ASCII byte), one pass, constant work
 * per byte and memory bounded by maxDepth; it does not validate: malformed JSON is JSON.parse's to
 * refuse, and its counts then stay an upper bound of what was read.
 */
export class JsonShapeScanner {
  private nodes = 0;
  private inString = false;
  private escaped = false;
  private expectValue = true;
  /** true = array, false = object, innermost last. */
  private readonly open: boolean[] = [];

  constructor(private readonly limits: { maxNodes: number; maxDepth: number }) {}

  /** Values seen so far. */
  get values(): number {
    return this.nodes;
  }

  /** Scans the next bytes of the document. Throws JsonShapeError past a limit. */
  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        continue;
      }
      if (isWhitespace(byte)) continue;
      if (this.expectValue && byte !== CLOSE_ARRAY) {
        this.expectValue = false;
        if (++this.nodes > this.limits.maxNodes) throw new JsonShapeError("nodes", this.limits.maxNodes);
        if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
          this.open.push(byte === OPEN_ARRAY);
          if (this.open.length > this.limits.maxDepth) throw new JsonShapeError("depth", this.limits.maxDepth);
          // An array's first value may follow; an object's first key may (keys are not values).
          this.expectValue = byte === OPEN_ARRAY;
        } else if (byte === QUOTE) this.inString = true;
        // Anything else starts a number or a literal: its other characters are not structure.
        continue;
      }
      if (byte === QUOTE) this.inString = true;
      else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        this.open.pop();
        this.expectValue = false;
      } else if (byte === COMMA) this.expectValue = this.open[this.open.length - 1] === true;
      else if (byte === COLON) this.expectValue = true;
    }
  }
}
