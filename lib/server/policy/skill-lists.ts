/** The part of a skill the allow and deny lists (and the categories filter) look at. */
export interface ListedSkill {
  name: string;
  category: string;
  /** Only native skills are subject to a persona's `categories` (seed 004 task 5.3); absent = subprocess. */
  kind?: "subprocess" | "native";
}

const CATEGORY_PREFIX = "category:";

/**
 * True when one entry of a persona's `skills.allow` / `skills.deny` list matches `skill` (DESIGN.md
 * "Policy", issue 4 point 2): `category:<glob>` matches the skill's category, anything else is a glob
 * over the skill's name, where `*` matches any run of characters (`*` alone: every skill;
 * `disk_*`: disk_usage and disk_cleaner). Matching is exact and case-sensitive otherwise.
 */
export function matchesSkillPattern(pattern: string, skill: ListedSkill): boolean {
  const trimmed = pattern.trim();
  if (trimmed.startsWith(CATEGORY_PREFIX)) return globMatches(trimmed.slice(CATEGORY_PREFIX.length), skill.category);
  return globMatches(trimmed, skill.name);
}

/**
 * Compiles one list entry: `*` matches any run of characters (also "/", ".", spaces: a category is free
 * text in a manifest, and `category:prod*` must catch `prod/db` as it reads), `?` exactly one
 * character (a code point), anything else only itself. No other glob syntax exists here: a leading `!` is a literal,
 * never "everything but" (an allow entry `!x` must not allow every other skill); braces, brackets,
 * parentheses, extglobs and `./` prefixes mean themselves. A path-glob engine is the wrong tool: its
 * `*` stops at "/", so a deny entry would miss skills whose category contains one.
 *
 * No regular expression and no backtracking (issue 10 point 1: `a*a*a*a*a*a*a*a*c` against a long
 * name took 9 s as a RegExp, doubling with each star): the entry splits at its stars into segments;
 * the first must start the value, the last must end it, and each one between is taken at its leftmost
 * place after the one before — leftmost is never worse, since a star absorbs whatever lies between.
 * At most (value length × entry length) character comparisons.
 */
function compileGlob(glob: string): (value: string) => boolean {
  const segments = glob.split("*").map((segment) => Array.from(segment));
  const first = segments[0]!;
  if (segments.length === 1) return (value) => {
    const chars = Array.from(value);
    return chars.length === first.length && segmentAt(chars, 0, first);
  };
  const last = segments[segments.length - 1]!;
  const middle = segments.slice(1, -1).filter((segment) => segment.length > 0);
  return (value) => {
    const chars = Array.from(value);
    const end = chars.length - last.length;
    if (end < first.length || !segmentAt(chars, 0, first) || !segmentAt(chars, end, last)) return false;
    let position = first.length;
    for (const segment of middle) {
      const found = findSegment(chars, segment, position, end);
      if (found < 0) return false;
      position = found + segment.length;
    }
    return true;
  };
}

/** Whether `segment` (code points, `?` = any one) matches `chars` at index `at`. */
function segmentAt(chars: readonly string[], at: number, segment: readonly string[]): boolean {
  for (let i = 0; i < segment.length; i++) {
    if (segment[i] !== "?" && segment[i] !== chars[at + i]) return false;
  }
  return true;
}

/** The leftmost index ≥ `from` where `segment` matches and ends by `limit`, or -1. */
function findSegment(chars: readonly string[], segment: readonly string[], from: number, limit: number): number {
  for (let at = from; at + segment.length <= limit; at++) if (segmentAt(chars, at, segment)) return at;
  return -1;
}

/** Compiled globs by pattern: listing thousands of skills for a persona must not recompile each entry per skill. */
const matchers = new Map<string, (value: string) => boolean>();
const MAX_CACHED_MATCHERS = 10_000;

function globMatches(glob: string, value: string): boolean {
  if (glob === "") return false;
  let matcher = matchers.get(glob);
  if (!matcher) {
    matcher = compileGlob(glob);
    if (matchers.size >= MAX_CACHED_MATCHERS) matchers.clear();
    matchers.set(glob, matcher);
  }
  return matcher(value);
}

/**
 * Whether a persona's lists let it call `skill`: deny wins over allow, and a persona without allow
 * entries may call nothing. Returns `{allowed, reason}`; the reason names the matching entry.
 */
export function listsAllow(lists: { allow: readonly string[]; deny: readonly string[] }, skill: ListedSkill, personaName: string): { allowed: boolean; reason: string } {
  const denied = lists.deny.find((pattern) => matchesSkillPattern(pattern, skill));
  if (denied !== undefined) return { allowed: false, reason: `persona ${personaName} denies ${skill.name} (skills.deny: ${JSON.stringify(denied)})` };
  if (lists.allow.length === 0) return { allowed: false, reason: `persona ${personaName} allows no skills (empty skills.allow)` };
  const allowed = lists.allow.find((pattern) => matchesSkillPattern(pattern, skill));
  if (allowed === undefined) return { allowed: false, reason: `${skill.name} is not in persona ${personaName}'s skills.allow` };
  return { allowed: true, reason: `allowed by skills.allow entry ${JSON.stringify(allowed)}` };
}

/**
 * Whether a persona's `categories` (seed 004 task 5.3: "if an agent only has categories [devops,
 * system], it does not load skills of analysis/ or communication/") let it load `skill`: absent
 * categories = every category; subprocess skills are not filtered by it (DESIGN.md "Native skills").
 * Returns `{allowed, reason}`.
 */
export function categoriesAllow(categories: readonly string[] | undefined, skill: ListedSkill, personaName: string): { allowed: boolean; reason: string } {
  if (skill.kind !== "native" || categories === undefined || categories.includes(skill.category)) return { allowed: true, reason: "category loaded" };
  return {
    allowed: false,
    reason: `persona ${personaName} loads native skills only from ${categories.length === 0 ? "no category" : `categories ${categories.join(", ")}`}; ${skill.name} is in ${skill.category}`,
  };
}
