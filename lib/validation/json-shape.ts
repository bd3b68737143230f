/** What a JSON document exceeded: too many values, or nesting too deep. */
export class JsonShapeError extends Error {
  constructor(
    readonly kind: "nodes" | "depth" | "duplicate",
    readonly limit: number,
    /** For `duplicate`: the key path that appeared twice, joined with dots. */
    readonly key = "",
  ) {
    super(
      kind === "nodes"
        ? `the JSON document has more than ${limit} values`
        : kind === "depth"
          ? `the JSON document nests deeper than ${limit} levels`
          : `the JSON document has the key ${key} twice`,
    );
  }
}

/** Byte offsets `[start, end)` of one value in a scanned document (end: its parent's next delimiter, so trailing whitespace may be included). */
export interface JsonSpan {
  start: number;
  end: number;
}

/** Longest key, in bytes as written, that is compared with a captured path (longer keys cannot be one of its short names). */
const MAX_CAPTURED_KEY_BYTES = 256;

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
  /** Bytes scanned before the current chunk. */
  private offset = 0;
  /** The key last read in each open object down to the captured path's depth (decoded), by depth. */
  private readonly keys: Array<string | null> = [];
  /** Raw bytes of the key being read (null: not capturing), and whether it outgrew MAX_CAPTURED_KEY_BYTES. */
  private keyBytes: number[] | null = null;
  private captureStart = -1;
  private found: JsonSpan | null = null;
  /** Whether the captured path's key at each depth was already read in the current object there (a second one is refused). */
  private readonly seenPathKey: boolean[] = [];
  /** With `captureItems`, when the captured value is an array: the offsets of its `[`, of each comma between its items, then of its `]` (-1 until read). */
  private itemBounds: number[] | null = null;
  private itemsClosed = false;

  /**
   * `capture`: a path of object keys (e.g. `["args"]`, `["params", "arguments"]`) whose value's span is
   * recorded (capturedSpan) so that the caller can hand that value's text on without parsing it here;
   * the key path appearing twice throws JsonShapeError `duplicate` (JSON.parse would keep the last one
   * silently, and the span would then not be the value the document means).
   * `captureItems`: when the captured value is an array, also record where its items begin and end
   * (capturedItems), so that the caller can parse them a slice at a time.
   */
  constructor(private readonly limits: { maxNodes: number; maxDepth: number; capture?: readonly string[]; captureItems?: boolean }) {}

  /** Values seen so far. */
  get values(): number {
    return this.nodes;
  }

  /** The span of the captured path's value once the document is scanned (null: absent, or not yet ended). */
  get capturedSpan(): JsonSpan | null {
    return this.found;
  }

  /**
   * With `captureItems`, once the document is scanned and its captured value is an array: the offsets of
   * that array's `[`, of each comma between its items (at its own level, not inside an item), and of its
   * `]`; item i is the bytes between bounds i and i + 1. Null otherwise. The scanner does not validate:
   * a caller parsing the items must check that each parsed slice holds as many items as its bounds say.
   */
  get capturedItems(): readonly number[] | null {
    return this.found !== null && this.itemBounds !== null && this.itemsClosed ? this.itemBounds : null;
  }

  /** True when the key path down to the open containers matches the captured path so far (every level an object). */
  private onCapturedPath(): boolean {
    const path = this.limits.capture!;
    if (this.open.length !== path.length) return false;
    for (let depth = 0; depth < path.length; depth++) if (this.open[depth] !== false || this.keys[depth] !== path[depth]) return false;
    return true;
  }

  /** Scans the next bytes of the document. Throws JsonShapeError past a limit. */
  push(bytes: Uint8Array): void {
    const capture = this.limits.capture;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) {
          this.inString = false;
          if (this.keyBytes !== null) this.endKey();
          continue;
        }
        if (this.keyBytes !== null && this.keyBytes.length <= MAX_CAPTURED_KEY_BYTES) this.keyBytes.push(byte);
        continue;
      }
      if (isWhitespace(byte)) continue;
      if (this.itemBounds !== null && !this.itemsClosed && this.open.length === capture!.length + 1 && (byte === COMMA || byte === CLOSE_ARRAY)) {
        this.itemBounds.push(this.offset + i);
        if (byte === CLOSE_ARRAY) this.itemsClosed = true;
      }
      if (this.captureStart >= 0 && this.open.length === capture!.length && (byte === COMMA || byte === CLOSE_OBJECT)) {
        this.found = { start: this.captureStart, end: this.offset + i };
        this.captureStart = -1;
      }
      if (this.expectValue && byte !== CLOSE_ARRAY) {
        this.expectValue = false;
        if (++this.nodes > this.limits.maxNodes) throw new JsonShapeError("nodes", this.limits.maxNodes);
        if (capture && this.onCapturedPath()) {
          if (this.found !== null || this.captureStart >= 0) throw new JsonShapeError("duplicate", 0, capture.join("."));
          this.captureStart = this.offset + i;
          if (this.limits.captureItems && byte === OPEN_ARRAY) this.itemBounds = [this.offset + i];
        }
        if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
          this.open.push(byte === OPEN_ARRAY);
          if (capture && this.open.length <= capture.length) this.seenPathKey[this.open.length - 1] = false;
          if (this.open.length > this.limits.maxDepth) throw new JsonShapeError("depth", this.limits.maxDepth);
          // An array's first value may follow; an object's first key may (keys are not values).
          this.expectValue = byte === OPEN_ARRAY;
        } else if (byte === QUOTE) this.inString = true;
        // Anything else starts a number or a literal: its other characters are not structure.
        continue;
      }
      if (byte === QUOTE) {
        this.inString = true;
        // A key of an object down to the captured path's depth: read it (keys are not values).
        if (capture && this.open.length <= capture.length && this.open[this.open.length - 1] === false) this.keyBytes = [];
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        this.open.pop();
        if (capture && this.open.length < this.keys.length) this.keys.length = this.open.length;
        this.expectValue = false;
      } else if (byte === COMMA) this.expectValue = this.open[this.open.length - 1] === true;
      else if (byte === COLON) this.expectValue = true;
    }
    this.offset += bytes.length;
  }

  /** A key just ended: decoded as JSON.parse would (escapes included), remembered for its depth. */
  private endKey(): void {
    const raw = this.keyBytes!;
    this.keyBytes = null;
    let key: string | null = null;
    if (raw.length <= MAX_CAPTURED_KEY_BYTES) {
      try {
        key = JSON.parse(`"${Buffer.from(raw).toString("utf8")}"`) as string;
      } catch {
        key = null; // malformed: JSON.parse will refuse the document
      }
    }
    this.keys.length = this.open.length;
    const depth = this.open.length;
    this.keys[depth - 1] = key;
    // The path's key twice in one object on the path (`"params"` twice around `"arguments"`):
    // JSON.parse keeps the last one, which may not hold the captured value.
    const path = this.limits.capture!;
    if (key === path[depth - 1] && this.onPathDownTo(depth - 1)) {
      if (this.seenPathKey[depth - 1]) throw new JsonShapeError("duplicate", 0, path.slice(0, depth).join("."));
      this.seenPathKey[depth - 1] = true;
    }
  }

  /** True when the containers down to `depth` levels are objects whose keys so far match the captured path. */
  private onPathDownTo(depth: number): boolean {
    const path = this.limits.capture!;
    for (let level = 0; level <= depth; level++) if (this.open[level] !== false) return false;
    for (let level = 0; level < depth; level++) if (this.keys[level] !== path[level]) return false;
    return true;
  }
}
