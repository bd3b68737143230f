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

function globMatches(glob: string, value: string): boolean {
  if (glob === "") return false;
  return picomatch.isMatch(value, glob, { dot: true, nobrace: true, noextglob: true, noglobstar: true });
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
