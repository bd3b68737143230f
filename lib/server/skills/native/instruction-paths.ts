import path from "node:path";

/**
 * Level 3 as the instructions name it (DESIGN.md "Native skills": a relative link or path named in the
 * instructions that resolves to no file is a loader warning). Public skills tell the agent to read
 * `FORMS.md` or `reference/api.md`; a name that leads nowhere is a file the agent will ask for and not get.
 */

/** Most missing paths reported for one skill; the rest are counted. */
export const MAX_MISSING_PATH_WARNINGS = 20;

/** Folders whose files instructions name in code spans (`scripts/fill.py`, `reference/api.md`). */
const NAMED_FOLDERS = new Set(["scripts", "references", "reference", "templates", "assets", "examples"]);
/** A path-like code span: relative segments of word characters, dots and hyphens, with a file extension. */
const PATH_SPAN = /^(?:\.\/)?[\w.-]+(?:\/[\w.-]+)*\.[A-Za-z0-9]{1,8}$/;
/**
 * An inline link or image `[text](target "title")`, and a reference definition `[label]: target`.
 * Every repeated part stops at the characters that could start another attempt (`[`, `(`, `<`), so a
 * body of a million `[` or `[](` is scanned in linear time (a quadratic pattern froze the console for
 * minutes while it loaded such a SKILL.md).
 */
const INLINE_LINK = /!?\[[^[\]\n]*\]\([ \t]*(<[^<>\n]*>|[^()<\s]+)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)/g;
/** The longest instructions text searched for paths (characters); the rest of a larger body is not. */
export const MAX_SEARCHED_INSTRUCTIONS = 256 * 1024;
const REFERENCE_LINK = /^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm;
const CODE_SPAN = /`([^`\n]+)`/g;

/** The markdown with fenced code blocks blanked (their text names commands, not links). */
function withoutFences(markdown: string): string {
  // The fence run ends where its character does ((?!`)): a line of a million backticks is not backtracked into.
  return markdown.replace(/^( {0,3})(`{3,}(?!`)|~{3,}(?!~))[^\n]*\n[\s\S]*?(?:^ {0,3}\2[^\S\n]*$|(?![\s\S]))/gm, "");
}

/** The relative, in-folder form of a link target, or null for what is no file of the skill (a URL, an anchor, an absolute path). */
function relativeTarget(raw: string): string | null {
  let target = raw.startsWith("<") && raw.endsWith(">") ? raw.slice(1, -1) : raw;
  target = target.split("#")[0]!.split("?")[0]!;
  if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/") || target.startsWith("~")) return null;
  try {
    target = decodeURIComponent(target);
  } catch {
    // Not percent-encoded text: checked as written.
  }
  return target;
}

/**
 * The paths `instructions` (SKILL.md's markdown body) names that are no file or folder of the skill:
 * relative link targets (inline, images, reference definitions) outside fenced code, and code spans
 * that look like a file path and either start with a folder skills keep their files in (`scripts/`,
 * `reference/`, …) or one the skill has, or are a bare upper-case `*.md` name (`FORMS.md`). `files` are the skill's files
 * relative to its folder (the resource index, SKILL.md included). A path leading out of the folder
 * (`../x.md`) counts as missing. Only the first MAX_SEARCHED_INSTRUCTIONS characters are searched, in
 * linear time. Returns each missing path once, in order of appearance. Pure.
 */
export function missingInstructionPaths(instructions: string, files: readonly string[]): string[] {
  const known = new Set<string>();
  const folders = new Set<string>();
  for (const file of files) {
    known.add(file);
    const parts = file.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  const topLevel = new Set([...folders].filter((folder) => !folder.includes("/")));
  const text = withoutFences(instructions.length > MAX_SEARCHED_INSTRUCTIONS ? instructions.slice(0, MAX_SEARCHED_INSTRUCTIONS) : instructions);
  const named: string[] = [];
  for (const match of text.matchAll(INLINE_LINK)) named.push(match[1]!);
  for (const match of text.matchAll(REFERENCE_LINK)) named.push(match[1]!);
  const candidates: string[] = [];
  for (const raw of named) {
    const target = relativeTarget(raw);
    if (target !== null) candidates.push(target);
  }
  for (const match of text.matchAll(CODE_SPAN)) {
    const span = match[1]!.trim();
    if (!PATH_SPAN.test(span)) continue;
    const first = span.replace(/^\.\//, "").split("/")[0]!;
    // A bare name counts when it is written as skills name their own documents (FORMS.md, REFERENCE.md);
    // a lowercase one is as often a file the skill tells the agent to create (notes-2026-01-14.md).
    const bareMarkdown = !span.includes("/") && /^(?:\.\/)?[A-Z0-9_-]+\.md$/.test(span);
    if (bareMarkdown || (span.includes("/") && (NAMED_FOLDERS.has(first) || topLevel.has(first)))) candidates.push(span);
  }
  const missing: string[] = [];
  for (const candidate of candidates) {
    const normal = path.posix.normalize(candidate).replace(/\/$/, "");
    const exists = normal !== ".." && !normal.startsWith("../") && (known.has(normal) || folders.has(normal) || normal === ".");
    if (!exists && !missing.includes(candidate)) missing.push(candidate);
  }
  return missing;
}
