import { pieceEnd } from "../utf16-slices";
import { stringResponse } from "./known-body";

/**
 * JSON columns served without being parsed (issue 10 point 1). A call's args and result are stored
 * as JSON text — canonical args, a result checked to be one JSON object when it was stored — of up to
 * megabytes. Parsing such a column into objects and serialising them again for every answer that
 * carries the call (its page, the list, the SSE `end` event, the approvals) cost tens to hundreds of
 * milliseconds of the event loop per answer for args of 100,000 keys. Instead the row's object gets
 * the column as a lazily parsed property (defineStoredJson: code that reads it still gets the parsed
 * value) and stringifyJson writes the stored text into the answer as it is.
 */
/** Each holder's stored texts by property, in a WeakMap on globalThis (every Next.js route bundle shares it; no property shows on the object). */
const STORED_KEY = Symbol.for("skill-console.stored-json");
const stored: WeakMap<object, Map<string, StoredText>> = ((globalThis as Record<symbol, WeakMap<object, Map<string, StoredText>> | undefined>)[STORED_KEY] ??= new WeakMap());

/**
 * A stored JSON text kept in parts elsewhere (CallPayload): read whole, synchronously (code that reads
 * the parsed property; SQLite only), or one part at a time (null past the last) when an answer streams
 * it — at once on SQLite, as a promise on PostgreSQL.
 */
export interface StoredParts {
  whole(): string;
  part(index: number): string | null | Promise<string | null>;
}

/** A stored JSON text, or how to read it when it is first needed. */
export type StoredText = string | StoredParts;

function textOf(text: StoredText): string {
  return typeof text === "string" ? text : text.whole();
}

type Holder = Record<string, unknown>;

const PAGED_LIST = Symbol.for("skill-console.paged-list");

/**
 * A JSON array of an answer that jsonResponse writes a few items per read of the body (issue 10
 * point 1: a call's 250,000 stored timeline lines are neither read nor serialised in one turn).
 * `first` is the first page, read before the answer starts (so a failure there is still a status);
 * `following(last)` reads the page after item `last`, an empty array past the end.
 */
export interface PagedList<T> {
  readonly [PAGED_LIST]: true;
  readonly first: readonly T[];
  following(last: T): Promise<readonly T[]>;
}

/** A PagedList of `first` and the pages `following` reads (see PagedList). */
export function pagedList<T>(first: readonly T[], following: (last: T) => Promise<readonly T[]>): PagedList<T> {
  return { [PAGED_LIST]: true, first, following };
}

function isPagedList(value: unknown): value is PagedList<unknown> {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PAGED_LIST] === true;
}

/** Most UTF-16 code units of serialised text jsonResponse encodes and enqueues per read of the body. */
const STREAM_PIECE_CHARS = 256 * 1024;

/** `text` cut into pieces of STREAM_PIECE_CHARS code units (one more where that keeps a surrogate pair whole). */
function* piecesOf(text: string): Generator<string> {
  for (let from = 0; from < text.length; ) {
    const to = pieceEnd(text, from, STREAM_PIECE_CHARS);
    yield text.slice(from, to);
    from = to;
  }
}

/**
 * Defines `holder[key]` as the JSON `text` (a stored column known to be valid JSON of an object, or a
 * function reading it), parsed on first read (and memoised); `text` null reads as `whenNull`. Setting
 * the property replaces the value and drops the stored text. Returns `holder`.
 */
export function defineStoredJson<T extends object>(holder: T, key: string, text: StoredText | null, whenNull: unknown): T {
  const target = holder as Holder;
  if (text === null) {
    target[key] = whenNull;
    return holder;
  }
  let texts = stored.get(target);
  if (!texts) {
    texts = new Map();
    stored.set(target, texts);
  }
  texts.set(key, text);
  let parsed = false;
  let value: unknown;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      if (!parsed) {
        value = JSON.parse(textOf(text));
        parsed = true;
      }
      return value;
    },
    set(this: Holder, next: unknown) {
      stored.get(this)?.delete(key);
      Object.defineProperty(this, key, { value: next, enumerable: true, configurable: true, writable: true });
    },
  });
  return holder;
}

/** The stored text behind `holder[key]` (defineStoredJson), or undefined when it is an ordinary property. */
export function storedTextOf(holder: object, key: string): StoredText | undefined {
  return stored.get(holder)?.get(key);
}

/**
 * A copy of `source` with `extra` fields set over it, keeping its stored-JSON properties stored (a
 * spread, `{...call}`, would parse them). Returns the copy.
 */
export function withFields<T extends object, E extends object>(source: T, extra: E): T & E {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(source)) as Holder;
  const texts = stored.get(source);
  if (texts) stored.set(copy, new Map(texts));
  for (const [key, value] of Object.entries(extra)) {
    stored.get(copy)?.delete(key);
    Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return copy as T & E;
}

/**
 * JSON.stringify of `value`, except that the stored-JSON properties of objects in it (defineStoredJson)
 * are written as their stored text, unparsed. The text goes in through a marker string that no
 * serialised user string can contain: JSON.stringify escapes the NUL it starts with, so a marker
 * appears in the output only where this function put one (a per-call random nonce besides).
 */
export function stringifyJson(value: unknown): string {
  const { pieces, spliced } = serialise(value);
  return pieces
    .map((piece) => {
      if (typeof piece === "string") return piece;
      const text = spliced[piece]!;
      if (isPagedList(text)) throw new Error("a paged list is written only by jsonResponse");
      return textOf(text);
    })
    .join("");
}

/**
 * JSON.stringify of `value` cut where stored texts and paged lists go: `pieces` are serialised text
 * (strings) and indexes into `spliced`, the stored texts and paged lists, in order. A subtree holding
 * neither (most of an answer) is written by one native JSON.stringify; only the objects on the way to a
 * stored text are walked here, with JSON.stringify's rules (toJSON(key), undefined/function/symbol
 * values left out of objects and null in arrays, holes null, a cycle a TypeError). A replacer function
 * on the whole value cost ~0.4 ms of CPU per call answer (issue 9 point 6). Throws what JSON.stringify throws.
 */
function serialise(value: unknown): { pieces: Array<string | number>; spliced: Array<StoredText | PagedList<unknown>> } {
  const writer = new PieceWriter();
  if (!writeValue(writer, "", value, new Set())) return { pieces: [], spliced: [] };
  return writer.done();
}

/** Serialised text and spliced texts in order, adjacent strings joined. */
class PieceWriter {
  private readonly pieces: Array<string | number> = [];
  private readonly spliced: Array<StoredText | PagedList<unknown>> = [];
  private text = "";

  write(text: string): void {
    this.text += text;
  }

  splice(value: StoredText | PagedList<unknown>): void {
    if (this.text !== "") this.pieces.push(this.text);
    this.text = "";
    this.pieces.push(this.spliced.length);
    this.spliced.push(value);
  }

  done(): { pieces: Array<string | number>; spliced: Array<StoredText | PagedList<unknown>> } {
    if (this.text !== "" || this.pieces.length === 0) this.pieces.push(this.text);
    return { pieces: this.pieces, spliced: this.spliced };
  }
}

/** `value` after its toJSON(key), as JSON.stringify sees it. */
function jsonValueOf(key: string, value: unknown): unknown {
  if (value !== null && (typeof value === "object" || typeof value === "bigint") && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  return value;
}

/** Whether JSON.stringify leaves `value` (after toJSON) out of an object (null in an array). */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** Deeper than this, needsWalk stops looking and says yes (the walk then finds a cycle or the text). */
const NEEDS_WALK_DEPTH = 64;

/**
 * Whether `value` (an object) holds a stored text or a paged list at any depth, or may (a toJSON
 * whose result is not known without calling it, or more than NEEDS_WALK_DEPTH levels). A stored
 * holder's properties are not read (that would parse them).
 */
function needsWalk(value: object, depth: number): boolean {
  if (depth > NEEDS_WALK_DEPTH || isPagedList(value) || typeof (value as { toJSON?: unknown }).toJSON === "function") return true;
  const texts = stored.get(value);
  if (texts && texts.size > 0) return true;
  const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) if (child !== null && typeof child === "object" && needsWalk(child, depth + 1)) return true;
  return false;
}

/**
 * Writes `raw` as the property `key` of its holder, through its toJSON(key) first. Returns false when
 * JSON.stringify would leave it out (nothing written). `ancestors` are the objects being written around it.
 */
function writeValue(writer: PieceWriter, key: string, raw: unknown, ancestors: Set<object>): boolean {
  const value = jsonValueOf(key, raw);
  if (isOmitted(value)) return false;
  writeResolved(writer, value, ancestors);
  return true;
}

/** Writes `value`, already through toJSON and not omitted (writeValue). */
function writeResolved(writer: PieceWriter, value: unknown, ancestors: Set<object>): void {
  if (value === null || typeof value !== "object") {
    writer.write(JSON.stringify(value));
    return;
  }
  if (isPagedList(value)) {
    writer.splice(value);
    return;
  }
  const texts = stored.get(value);
  const holdsTexts = texts !== undefined && texts.size > 0;
  // An object with a toJSON of its own here is a toJSON's result: JSON.stringify writes its properties,
  // never calling that toJSON, so it is walked (needsWalk says so) rather than stringified natively.
  if (!holdsTexts && !needsWalk(value, 0)) {
    writer.write(JSON.stringify(value));
    return;
  }
  if (ancestors.has(value)) throw new TypeError("Converting circular structure to JSON");
  ancestors.add(value);
  if (Array.isArray(value)) {
    writer.write("[");
    for (let index = 0; index < value.length; index++) {
      if (index > 0) writer.write(",");
      if (!writeValue(writer, String(index), value[index], ancestors)) writer.write("null");
    }
    writer.write("]");
  } else {
    writer.write("{");
    let first = true;
    for (const property of Object.keys(value)) {
      const text = holdsTexts ? texts.get(property) : undefined;
      const child = text !== undefined ? undefined : jsonValueOf(property, (value as Holder)[property]);
      if (text === undefined && isOmitted(child)) continue;
      writer.write(`${first ? "" : ","}${JSON.stringify(property)}:`);
      first = false;
      if (text !== undefined) writer.splice(text);
      else writeResolved(writer, child, ancestors);
    }
    writer.write("}");
  }
  ancestors.delete(value);
}

/**
 * Response.json with stringifyJson: a JSON answer whose stored-JSON properties are written unparsed.
 * A small answer is one string; one with a text kept in parts (StoredParts), a PagedList, or more
 * than STREAM_PIECE_CHARS of text streams, a bounded piece per read of the body, so that megabytes
 * of args, a result and a long timeline are never read, joined or encoded in one turn of the event
 * loop (issue 10 point 1). A page that fails to read after the answer started errors the stream.
 */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  const { pieces, spliced } = serialise(body);
  // Texts in parts and paged lists count as long: their length is known only once read.
  const inlineChars = pieces.reduce<number>((sum, piece) => {
    const text = typeof piece === "string" ? piece : spliced[piece];
    return sum + (typeof text === "string" ? text.length : Infinity);
  }, 0);
  if (inlineChars <= STREAM_PIECE_CHARS) {
    return stringResponse(pieces.map((piece) => (typeof piece === "string" ? piece : (spliced[piece] as string))).join(""), { ...init, headers });
  }
  const encoder = new TextEncoder();
  const chunks = answerPieces(pieces, spliced);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = await chunks.next();
        if (next.done) return controller.close();
        if (next.value !== "") return controller.enqueue(encoder.encode(next.value));
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(stream, { ...init, headers });
}

/** The text of an answer (serialise's pieces), in pieces of at most about STREAM_PIECE_CHARS. */
async function* answerPieces(pieces: Array<string | number>, spliced: Array<StoredText | PagedList<unknown>>): AsyncGenerator<string, void, undefined> {
  for (const piece of pieces) {
    const text = typeof piece === "string" ? piece : spliced[piece]!;
    if (typeof text === "string") yield* piecesOf(text);
    else if (isPagedList(text)) yield* pagedListPieces(text);
    else {
      for (let part = 0; ; part++) {
        const chunk = await text.part(part);
        if (chunk === null) break;
        yield* piecesOf(chunk);
      }
    }
  }
}

/** A PagedList as JSON text: `[`, its items serialised a piece of about STREAM_PIECE_CHARS at a time, `]`. */
async function* pagedListPieces(list: PagedList<unknown>): AsyncGenerator<string, void, undefined> {
  let page = list.first;
  let piece = "[";
  let first = true;
  while (page.length > 0) {
    for (const item of page) {
      piece += (first ? "" : ",") + JSON.stringify(item);
      first = false;
      if (piece.length >= STREAM_PIECE_CHARS) {
        yield* piecesOf(piece);
        piece = "";
      }
    }
    page = await list.following(page.at(-1));
  }
  yield piece + "]";
}
