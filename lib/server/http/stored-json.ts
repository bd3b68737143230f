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

/** A stored JSON text, or how to read it (synchronously) when it is first needed (CallPayload parts). */
export type StoredText = string | (() => string);

function textOf(text: StoredText): string {
  return typeof text === "string" ? text : text();
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
  const spliced: string[] = [];
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
        spliced.push(textOf(text));
      } else copy[key] = "get" in descriptor && descriptor.get ? descriptor.get.call(current) : descriptor.value;
    }
    return copy;
  });
  if (spliced.length === 0) return output;
  const marker = new RegExp(`"\\\\u0000${nonce}:(\\d+)\\\\u0000"`, "g");
  return output.replace(marker, (_match, index: string) => spliced[Number(index)]!);
}

/** Response.json with stringifyJson: a JSON answer whose stored-JSON properties are written unparsed. */
export function jsonResponse(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  return new Response(stringifyJson(body), { ...init, headers });
}
