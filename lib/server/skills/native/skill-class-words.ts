import { SKILL_CLASSES, type SkillClass } from "@/lib/types/skill";

const CLASS_WORDS: Readonly<Record<string, SkillClass>> = {
  safe: "safe",
  read: "safe",
  mutating: "mutating",
  write: "mutating",
  dangerous: "dangerous",
  destructive: "dangerous",
};

/**
 * Reads a frontmatter class word (DESIGN.md "Native skills"): safe|mutating|dangerous, or the synonyms
 * read → safe, write → mutating, destructive → dangerous, case-insensitive, surrounding spaces ignored.
 * Anything else (an unknown word, a number, a list) gives `dangerous` with known = false, so the
 * caller can warn (deny when in doubt). Pure.
 */
export function readClassWord(value: unknown): { skillClass: SkillClass; known: boolean } {
  const word = typeof value === "string" ? value.trim().toLowerCase() : null;
  const skillClass = word === null ? undefined : CLASS_WORDS[word];
  return skillClass ? { skillClass, known: true } : { skillClass: "dangerous", known: false };
}

/** The most dangerous of the given classes (safe < mutating < dangerous), or null for none. Pure. */
export function highestClass(classes: readonly SkillClass[]): SkillClass | null {
  let highest: SkillClass | null = null;
  for (const skillClass of classes) {
    if (highest === null || SKILL_CLASSES.indexOf(skillClass) > SKILL_CLASSES.indexOf(highest)) highest = skillClass;
  }
  return highest;
}
