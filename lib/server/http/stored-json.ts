import { randomBytes } from "node:crypto";

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
 * A stored JSON text kept in parts elsewhere (CallPayload): read whole, or one part at a time (null
 * past the last), synchronously, when an answer needs it.
 */
export interface StoredParts {
  whole(): string;
  part(index: number): string | null;
}

/** A stored JSON text, or how to read it when it is first needed. */
export type StoredText = string | StoredParts;

function textOf(text: StoredText): string {
  return typeof text === "string" ? text : text.whole();
}

type Holder = Record<string, unknown>;

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
  return pieces.map((piece) => (typeof piece === "string" ? piece : textOf(spliced[piece]!))).join("");
}

/**
 * JSON.stringify of `value` with each stored-JSON property replaced by a marker, cut at the markers:
 * `pieces` are serialised text (strings) and indexes into `spliced`, the stored texts, in order.
 */
function serialise(value: unknown): { pieces: Array<string | number>; spliced: StoredText[] } {
  const spliced: StoredText[] = [];
  const nonce = randomBytes(6).toString("hex");
  const output = JSON.stringify(value, function (this: unknown, _key: string, current: unknown) {
    if (current === null || typeof current !== "object") return current;
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
 * Response.json with stringifyJson: a JSON answer whose stored-JSON properties are written unparsed;
 * when one is kept in parts (StoredParts), the answer streams, one part per read.
 */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  const { pieces, spliced } = serialise(body);
  if (!spliced.some((text) => typeof text !== "string")) {
    return new Response(pieces.map((piece) => (typeof piece === "string" ? piece : (spliced[piece] as string))).join(""), { ...init, headers });
  }
  // Texts in parts (megabytes of args) are streamed a part per pull, the event loop free between
  // parts, rather than read, joined and encoded in one go (issue 10 point 1).
  const encoder = new TextEncoder();
  let index = 0;
  let part = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      while (index < pieces.length) {
        const piece = pieces[index]!;
        const text = typeof piece === "string" ? piece : spliced[piece]!;
        if (typeof text === "string") {
          index += 1;
          if (text !== "") return controller.enqueue(encoder.encode(text));
          continue;
        }
        const chunk = text.part(part);
        if (chunk === null) {
          index += 1;
          part = 0;
          continue;
        }
        part += 1;
        return controller.enqueue(encoder.encode(chunk));
      }
      controller.close();
    },
  });
  return new Response(stream, { ...init, headers });
}
