/**
 * Cutting JavaScript strings (UTF-16) into pieces without splitting a surrogate pair: a piece that
 * ended on the first half of a pair would be encoded, hashed or stored as U+FFFD, so the pieces would
 * no longer be the text.
 */

/** Whether `code` (a UTF-16 code unit) is the first half of a surrogate pair. */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Where a piece of `text` starting at `start` and about `length` code units long ends: `start +
 * length` (at most the text's length), one further when that would split a surrogate pair. Pure.
 */
export function pieceEnd(text: string, start: number, length: number): number {
  const end = Math.min(start + length, text.length);
  return end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) ? end + 1 : end;
}
