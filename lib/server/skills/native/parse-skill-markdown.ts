import matter from "gray-matter";
import YAML from "yaml";

/** Largest SKILL.md read, in bytes (1 MiB); a larger file is refused with a parse error. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
/** Largest frontmatter block (the YAML between the `---` lines), in bytes (64 KiB). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** Most YAML aliases a frontmatter may resolve; past it the document is refused as an alias bomb. */
export const MAX_YAML_ALIASES = 100;

/** What parsing one SKILL.md gave. */
export type ParsedSkillMarkdown =
  | {
      ok: true;
      /** The frontmatter mapping as parsed (every key kept). */
      frontmatter: Record<string, unknown>;
      /** The markdown after the closing `---` line (a later `---` rule stays in it). */
      body: string;
      /** Tolerated deviations: leading blank lines, YAML warnings. */
      warnings: string[];
    }
  | {
      ok: false;
      /** "no_frontmatter": the file does not open with `---` (skipped); "parse": anything else (failed). */
      problem: "no_frontmatter" | "parse";
      message: string;
    };

const FENCE = /^---[ \t]*$/;

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? "").trim().replace(/:$/, "");
}

/**
 * The YAML engine handed to gray-matter: the `yaml` package with safe limits (duplicate keys refused,
 * at most MAX_YAML_ALIASES aliases resolved, so a "billion laughs" document fails fast instead of
 * exhausting memory). Returns the parsed value; throws an Error with a one-line, readable reason.
 * YAML warnings are appended to `warnings`.
 */
function safeYamlParse(text: string, warnings: string[]): unknown {
  const document = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true, schema: "core" });
  if (document.errors.length > 0) throw new Error(`frontmatter is not valid YAML: ${firstLine(document.errors[0]?.message ?? "")}`);
  for (const warning of document.warnings) warnings.push(`frontmatter YAML: ${firstLine(warning.message)}`);
  try {
    return document.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      throw new Error(`frontmatter resolves more than ${MAX_YAML_ALIASES} YAML aliases: refused as a possible alias bomb`);
    }
    throw new Error(`frontmatter is not valid YAML: ${firstLine(error instanceof Error ? error.message : String(error))}`);
  }
}

function refusingEngine(language: string) {
  return {
    parse: () => {
      throw new Error(`frontmatter language ${language} is not accepted; only YAML`);
    },
  };
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "empty";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}

/**
 * Parses the bytes of a SKILL.md (seed 004: YAML frontmatter between `---` lines, then markdown), with
 * the tolerance the Agent Skills client guidance asks for: a UTF-8 BOM, CRLF line endings, blank lines
 * before the opening `---` (warning), trailing spaces on the fences, and later `---` lines kept in the
 * body as markdown rules. The split is done here (gray-matter's own would pick a language engine, even
 * `javascript`, from text after the opening fence, and treats an unclosed block as frontmatter); the
 * YAML is then parsed through gray-matter with `yaml` as its only engine (safeYamlParse). Refuses, with
 * a one-line reason: files over MAX_SKILL_FILE_BYTES, invalid UTF-8, frontmatter over
 * MAX_FRONTMATTER_BYTES, an opening `---` that is never closed, invalid YAML, alias bombs, and
 * frontmatter that is not a mapping. Invalid YAML whose plain values hold ": " is read again with those
 * values quoted (quoteBrokenValues, which also reads `key: [a] b` as text; DESIGN.md "Native skills"
 * leniency), with a warning naming each line. A file not starting with `---` gives problem "no_frontmatter".
 * Pure; never throws.
 */
export function parseSkillMarkdown(bytes: Uint8Array): ParsedSkillMarkdown {
  const fail = (message: string): ParsedSkillMarkdown => ({ ok: false, problem: "parse", message });
  if (bytes.byteLength > MAX_SKILL_FILE_BYTES) {
    return fail(`file is ${bytes.byteLength} bytes, larger than the ${MAX_SKILL_FILE_BYTES}-byte limit of a SKILL.md`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return fail("file is not valid UTF-8 text");
  }
  text = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  const warnings: string[] = [];
  let open = 0;
  while (open < lines.length && (lines[open] ?? "").trim() === "") open++;
  if (open >= lines.length || !FENCE.test(lines[open] ?? "")) {
    return { ok: false, problem: "no_frontmatter", message: "no frontmatter: the file does not start with a --- line" };
  }
  if (open > 0) warnings.push(`${open} blank line${open === 1 ? "" : "s"} before the opening ---`);
  let close = open + 1;
  while (close < lines.length && !FENCE.test(lines[close] ?? "")) close++;
  if (close >= lines.length) return fail(`frontmatter opened with --- on line ${open + 1} is never closed`);

  const yamlText = lines.slice(open + 1, close).join("\n");
  const yamlBytes = Buffer.byteLength(yamlText, "utf8");
  if (yamlBytes > MAX_FRONTMATTER_BYTES) {
    return fail(`frontmatter is ${yamlBytes} bytes, larger than the ${MAX_FRONTMATTER_BYTES}-byte limit`);
  }
  const body = lines.slice(close + 1).join("\n");

  const parsed = parseFrontmatter(yamlText, body, warnings);
  if (!parsed.ok) {
    // What the authors' own tools accept: a plain value holding ": " (a description that reads
    // "Use when: …"), or `[title] [message]`, is read as if it were quoted, and said so.
    const repaired = quoteBrokenValues(yamlText);
    if (repaired === null) return fail(parsed.message);
    const retried = parseFrontmatter(repaired.text, body, warnings);
    if (!retried.ok) return fail(parsed.message);
    for (const at of repaired.quoted) {
      warnings.push(
        at.why === "colon"
          ? `frontmatter line ${at.line}: the value of ${at.key} holds an unquoted ": " (invalid YAML); read as if it were quoted`
          : `frontmatter line ${at.line}: the value of ${at.key} is a flow collection followed by more text (invalid YAML); read as text`,
      );
    }
    return { ok: true, frontmatter: retried.frontmatter, body: retried.body, warnings };
  }
  return { ok: true, frontmatter: parsed.frontmatter, body: parsed.body, warnings };
}

/**
 * A mapping key as the re-read recognises it: a plain word of letters in any script, digits, `_`, `.`
 * and `-` (`description`, `描述`, `user-invocable`), or a single- or double-quoted key (`"description"`).
 */
const KEY = String.raw`[\p{L}_][\p{L}\p{N}_.-]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'`;
/** A top-level or nested `key: value` line whose value is a plain scalar (not quoted, not a flow collection, block scalar, alias, anchor or tag). */
const PLAIN_VALUE_LINE = new RegExp(`^([ \\t]*)(- +)?(${KEY})[ \\t]*:[ \\t]+([^\\s"'[{|>&*!#%@\`].*)$`, "u");
/** A `key: |` or `key: >` line (with chomping and indentation indicators, and a comment): a block scalar follows. */
const BLOCK_SCALAR_LINE = /^([ \t]*)(- +)?[^\s#][^:]*:[ \t]+[|>][+-]?[0-9]?[+-]?[ \t]*(?:#.*)?$/;
/** A `key: value` line whose value opens a flow collection (`[` or `{`). */
const FLOW_VALUE_LINE = new RegExp(`^([ \\t]*)(- +)?(${KEY})[ \\t]*:[ \\t]+([[{].*)$`, "u");

/** Where the flow collection opening `value` closes (index of its last bracket), or -1 when it does not. Quotes are skipped. */
function flowEnd(value: string): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (quote) {
      if (char === "\\" && quote === '"') i++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "[" || char === "{") depth++;
    else if (char === "]" || char === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** A value YAML refused that quoteBrokenValues read as text: its 1-based line in the frontmatter, its key and why. */
export interface QuotedValue {
  line: number;
  key: string;
  /** "colon": a plain value holding ": "; "flow": a `[list]` or `{map}` followed by more text (`[title] [message]`). */
  why: "colon" | "flow";
}

/**
 * The frontmatter text with the values YAML refuses but their authors' tools read as text wrapped in
 * double quotes: every plain value that holds ": " (YAML reads a nested mapping), its more-indented
 * continuation lines joined to it, and every one-line value that opens a flow collection and goes on
 * after it closes (`argument-hint: [title] [message]`); the lines of a block scalar (`key: |`) are
 * text and never touched. Null when no line needed it. Pure.
 */
export function quoteBrokenValues(yamlText: string): { text: string; quoted: QuotedValue[] } | null {
  const lines = yamlText.split("\n");
  const out: string[] = [];
  const quoted: QuotedValue[] = [];
  // Inside a block scalar (`key: |` or `key: >`), lines are text, however they read: kept as they are.
  let blockIndent = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const depth = line.length - line.trimStart().length;
    if (blockIndent >= 0) {
      if (line.trim() === "" || depth > blockIndent) {
        out.push(line);
        continue;
      }
      blockIndent = -1;
    }
    const block = BLOCK_SCALAR_LINE.exec(line);
    if (block) {
      blockIndent = (block[1] ?? "").length + (block[2] ?? "").length;
      out.push(line);
      continue;
    }
    const flow = FLOW_VALUE_LINE.exec(line);
    if (flow) {
      const value = flow[4]!.trim();
      const closes = flowEnd(value);
      const rest = closes === -1 ? "" : value.slice(closes + 1).trim();
      if (closes !== -1 && rest !== "" && !rest.startsWith("#")) {
        out.push(`${flow[1] ?? ""}${flow[2] ?? ""}${flow[3]}: ${JSON.stringify(value)}`);
        quoted.push({ line: i + 1, key: flow[3]!, why: "flow" });
      } else out.push(line);
      continue;
    }
    const match = PLAIN_VALUE_LINE.exec(line);
    if (!match) {
      out.push(line);
      continue;
    }
    const indent = (match[1] ?? "").length + (match[2] ?? "").length;
    const parts = [match[4]!.trim()];
    let next = i + 1;
    // A plain scalar goes on over the following lines indented deeper than its key.
    while (next < lines.length) {
      const following = lines[next]!;
      const depth = following.length - following.trimStart().length;
      if (following.trim() === "" || depth <= indent) break;
      parts.push(following.trim());
      next++;
    }
    const value = parts.join(" ");
    if (!value.includes(": ")) {
      out.push(...lines.slice(i, next));
      i = next - 1;
      continue;
    }
    out.push(`${match[1] ?? ""}${match[2] ?? ""}${match[3]}: ${JSON.stringify(value)}`);
    quoted.push({ line: i + 1, key: match[3]!, why: "colon" });
    i = next - 1;
  }
  return quoted.length > 0 ? { text: out.join("\n"), quoted } : null;
}

/**
 * Parses the frontmatter block `yamlText` (and the `body` after it) through gray-matter with `yaml` as
 * its only engine (safeYamlParse; YAML warnings pushed to `warnings`). Returns the mapping and body, or
 * the one-line reason it is refused (invalid YAML, alias bomb, not a mapping). Never throws.
 */
function parseFrontmatter(
  yamlText: string,
  body: string,
  warnings: string[],
): { ok: true; frontmatter: Record<string, unknown>; body: string } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  let parsed: matter.GrayMatterFile<string> & { isEmpty?: boolean };
  try {
    parsed = matter(`---\n${yamlText}\n---\n${body}`, {
      language: "yaml",
      engines: {
        yaml: { parse: (source: string) => safeYamlParse(source, warnings) as object },
        javascript: refusingEngine("javascript"),
        js: refusingEngine("js"),
        json: refusingEngine("json"),
        coffee: refusingEngine("coffee"),
        toml: refusingEngine("toml"),
      },
    });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  // gray-matter closes at the first line starting with `---`; ours needs the line to be exactly `---`.
  if (parsed.matter.replace(/^\n/, "") !== yamlText && !(yamlText.trim() === "" && parsed.matter.trim() === "")) {
    return fail("frontmatter holds a line starting with --- before its closing --- line");
  }
  const data: unknown = parsed.isEmpty ? {} : parsed.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return fail(`frontmatter must be a YAML mapping (key: value lines), not ${describeValue(data)}`);
  }
  return { ok: true, frontmatter: data as Record<string, unknown>, body: parsed.content };
}
