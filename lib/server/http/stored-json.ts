import { randomBytes } from "node:crypto";
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
 * JSON.stringify of `value` with each stored-JSON property replaced by a marker, cut at the markers:
 * `pieces` are serialised text (strings) and indexes into `spliced`, the stored texts, in order.
 */
function serialise(value: unknown): { pieces: Array<string | number>; spliced: Array<StoredText | PagedList<unknown>> } {
  const spliced: Array<StoredText | PagedList<unknown>> = [];
  const nonce = randomBytes(6).toString("hex");
  const output = JSON.stringify(value, function (this: unknown, _key: string, current: unknown) {
    if (current === null || typeof current !== "object") return current;
    if (isPagedList(current)) {
      spliced.push(current);
      return `\u0000${nonce}:${spliced.length - 1}\u0000`;
    }
    const texts = stored.get(current);
    if (!texts || texts.size === 0) return current;
    const copy: Record<string, unknown> = {};
    for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(current))) {
      if (!descriptor.enumerable) continue;
      const text = texts.get(key);
      if (text !== undefined) {
        copy[key] = `\u0000${nonce}:${spliced.length}\u0000`;
        spliced.push(text);
      } else copy[key] = "get" in descriptor && descriptor.get ? descriptor.get.call(current) : descriptor.value;
    }
    return copy;
  });
  if (spliced.length === 0) return { pieces: [output], spliced };
  const pieces: Array<string | number> = [];
  const marker = new RegExp(`"\\\\u0000${nonce}:(\\d+)\\\\u0000"`, "g");
  let from = 0;
  for (const match of output.matchAll(marker)) {
    pieces.push(output.slice(from, match.index), Number(match[1]));
    from = match.index + match[0].length;
  }
  pieces.push(output.slice(from));
  return { pieces, spliced };
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
