import picomatch from "picomatch";

/** The part of a skill the allow and deny lists look at. */
export interface ListedSkill {
  name: string;
  category: string;
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

// `nonegate`: a leading `!` is a literal character, never "everything but" (an allow entry `!x` must
// not allow every other skill); braces, extglobs and globstars are not part of the list syntax.
const GLOB_OPTIONS = { dot: true, nobrace: true, noextglob: true, noglobstar: true, nonegate: true } as const;

/** Compiled globs by pattern: listing thousands of skills for a persona must not recompile each entry per skill. */
const matchers = new Map<string, (value: string) => boolean>();
const MAX_CACHED_MATCHERS = 10_000;

function globMatches(glob: string, value: string): boolean {
  if (glob === "") return false;
  let matcher = matchers.get(glob);
  if (!matcher) {
    matcher = picomatch(glob, GLOB_OPTIONS);
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
