/** What a secret's value is replaced with wherever it appears (DESIGN.md "Skill secrets"). */
export const SECRET_MASK = "•••";

/** Shortest piece of a value masked on its own, in characters: a line of a PEM key, a string inside a JSON value (a line of "}" is no secret). */
const MIN_PIECE_LENGTH = 4;
/** Shortest string inside a JSON value masked on its own: long enough not to be an ordinary word of its keys' values ("service_account"). */
const MIN_LEAF_LENGTH = 16;
/** Forms longer than this are found with indexOf, not in a regular expression (V8 refuses patterns of some tens of KiB). */
const REGEX_FORM_MAX = 512;
/** Largest source of one of the masker's regular expressions, in characters. */
const REGEX_SOURCE_MAX = 16 * 1024;

/** `text` with every character outside printable ASCII written as JSON's `\uXXXX` (as Python's json.dumps and many encoders do). Pure. */
function asciiEscaped(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `escaped` with each character of `characters` written as `\u00XX`. Pure. */
function unicodeEscaped(escaped: string, characters: RegExp): string {
  return escaped.replace(characters, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The JSON forms of encoders that escape more than JavaScript: Go's encoding/json (<, >, &), Gson (also = and '), PHP (`\/`). Pure. */
function htmlSafeEscapes(escaped: string): string[] {
  return [unicodeEscaped(escaped, /[<>&]/g), unicodeEscaped(escaped, /[<>&=']/g), escaped.replace(/\//g, "\\/")];
}

/** The strings inside a JSON object or array value (a service account's private_key), or none when `value` is not one. Pure. */
function jsonLeaves(value: string): string[] {
  const trimmed = value.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return [];
  }
  const leaves: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === "string") {
      if (node.trim().length >= MIN_LEAF_LENGTH) leaves.push(node);
    } else if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") Object.values(node).forEach(walk);
  };
  walk(parsed);
  return leaves;
}

/**
 * The texts under which `value` may show up in what a call writes: the value itself; its JSON-escaped
 * forms (JavaScript's, the ASCII-only one of Python's json.dumps, Go's and PHP's); its URL-encoded form;
 * each line of a multi-line value (a PEM key is printed line by line) and, for a value that is a JSON
 * document (a service account), each string inside it with the same forms. Pieces shorter than
 * MIN_PIECE_LENGTH are left out. Pure.
 */
export function secretForms(value: string): string[] {
  const forms = new Set<string>();
  const add = (text: string, minimum: number) => {
    if (text.trim().length < minimum) return;
    forms.add(text);
    const escaped = JSON.stringify(text).slice(1, -1);
    for (const form of [escaped, asciiEscaped(text), ...htmlSafeEscapes(escaped), encodeURIComponent(text), encodeURIComponent(text).replace(/%20/g, "+")]) {
      if (form.trim().length >= minimum) forms.add(form);
    }
    for (const line of text.split(/\r?\n|\r/)) if (line !== text && line.trim().length >= MIN_PIECE_LENGTH) forms.add(line);
    for (const line of escaped.split(/\\r\\n|\\n|\\r/)) if (line !== escaped && line.trim().length >= MIN_PIECE_LENGTH) forms.add(line);
  };
  add(value, 1);
  for (const leaf of jsonLeaves(value)) add(leaf, MIN_PIECE_LENGTH);
  return [...forms];
}

/** Escapes `text` for use inside a RegExp. Pure. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A function that replaces every occurrence of any of `values` (and their secretForms) in a text with
 * SECRET_MASK, longest form first so a value that contains another is masked whole. Forms up to
 * REGEX_FORM_MAX characters are matched by a few regular expressions of bounded size, longer ones by
 * indexOf (a 40 KiB certificate bundle made V8 refuse the single expression, with the value in the
 * error). With no values it returns texts unchanged. Used by the worker on every timeline line, the
 * stdout and the error before they leave it, so the console never stores a secret's value. Pure.
 */
export function secretMasker(values: readonly string[]): SecretMask {
  const forms = [...new Set(values.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  const long = forms.filter((form) => form.length > REGEX_FORM_MAX);
  const patterns: RegExp[] = [];
  let batch: string[] = [];
  let size = 0;
  for (const form of forms.filter((candidate) => candidate.length <= REGEX_FORM_MAX)) {
    const source = escapeRegExp(form);
    if (batch.length > 0 && size + source.length + 1 > REGEX_SOURCE_MAX) {
      patterns.push(new RegExp(batch.join("|"), "g"));
      batch = [];
      size = 0;
    }
    batch.push(source);
    size += source.length + 1;
  }
  if (batch.length > 0) patterns.push(new RegExp(batch.join("|"), "g"));
  const edges = new EdgeMatcher(forms);
  return (text, cut) => {
    if (text === "") return text;
    let masked = text;
    for (const form of long) if (masked.includes(form)) masked = masked.split(form).join(SECRET_MASK);
    for (const pattern of patterns) masked = masked.replace(pattern, SECRET_MASK);
    if (cut?.cutAfter) {
      const length = edges.partAtEnd(masked);
      if (length > 0) masked = masked.slice(0, masked.length - length) + SECRET_MASK;
    }
    if (cut?.cutBefore) {
      const length = edges.partAtStart(masked);
      if (length > 0) masked = SECRET_MASK + masked.slice(length);
    }
    return masked;
  };
}

/**
 * Masks the secrets in a text (secretMasker). `cut`, for a line cut rather than ended (a 64 Ki piece
 * of a longer line, the last line kept at a byte limit: LineEdges), also masks the part of a value that
 * stands at a cut edge, the rest of it being in the next piece or dropped.
 */
export type SecretMask = (text: string, cut?: { cutBefore: boolean; cutAfter: boolean }) => string;

/** Shortest part of a value masked at a cut edge, in characters. */
const MIN_EDGE_PART = 4;

/**
 * Finds the part of a secret's form that a cut left at a text's end (a prefix of the form) or start (a
 * suffix of it), in time linear in the forms' length (Knuth–Morris–Pratt), whatever the text.
 */
class EdgeMatcher {
  private readonly prefixTables = new Map<string, Int32Array>();

  constructor(private readonly forms: readonly string[]) {}

  /** Length of the longest end of `text` that begins one of the forms (MIN_EDGE_PART or more, shorter than the form), or 0. */
  partAtEnd(text: string): number {
    let best = 0;
    for (const form of this.forms) best = Math.max(best, this.overlap(form, text.slice(-(form.length - 1))));
    return best >= MIN_EDGE_PART ? best : 0;
  }

  /** Length of the longest start of `text` that ends one of the forms (MIN_EDGE_PART or more, shorter than the form), or 0. */
  partAtStart(text: string): number {
    let best = 0;
    for (const form of this.forms) {
      const reversed = reverse(form);
      best = Math.max(best, this.overlap(reversed, reverse(text.slice(0, form.length - 1))));
    }
    return best >= MIN_EDGE_PART ? best : 0;
  }

  /** Length of the longest suffix of `text` that is a proper prefix of `pattern`. */
  private overlap(pattern: string, text: string): number {
    if (pattern.length < 2 || text === "") return 0;
    const table = this.prefixTable(pattern);
    let matched = 0;
    for (let index = 0; index < text.length; index++) {
      const char = text.charCodeAt(index);
      while (matched > 0 && (matched === pattern.length || pattern.charCodeAt(matched) !== char)) matched = table[matched - 1]!;
      if (pattern.charCodeAt(matched) === char) matched++;
    }
    return matched === pattern.length ? table[matched - 1]! : matched;
  }

  private prefixTable(pattern: string): Int32Array {
    let table = this.prefixTables.get(pattern);
    if (table) return table;
    table = new Int32Array(pattern.length);
    for (let index = 1, length = 0; index < pattern.length; index++) {
      while (length > 0 && pattern.charCodeAt(index) !== pattern.charCodeAt(length)) length = table[length - 1]!;
      if (pattern.charCodeAt(index) === pattern.charCodeAt(length)) length++;
      table[index] = length;
    }
    this.prefixTables.set(pattern, table);
    return table;
  }
}

/** `text` reversed by UTF-16 code unit (both sides of a comparison are reversed alike). Pure. */
function reverse(text: string): string {
  let reversed = "";
  for (let index = text.length - 1; index >= 0; index--) reversed += text[index];
  return reversed;
}

/**
 * `value` (a parsed JSON document) with `mask` applied to every string and every object key, decoded:
 * whatever escapes the encoder that wrote it used (`\u00e4`, `\u003c`), a secret inside a string is
 * found. Returns the same value when nothing changed. Pure.
 */
export function maskJsonValue(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === "string") return mask(value);
  if (Array.isArray(value)) {
    const items = value.map((item) => maskJsonValue(item, mask));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (value && typeof value === "object") {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const maskedKey = mask(key);
      const maskedItem = maskJsonValue(item, mask);
      if (maskedKey !== key || maskedItem !== item) changed = true;
      return [maskedKey, maskedItem] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}
