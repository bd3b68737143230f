/**
 * The strict report of a SKILL.md (DESIGN.md "Native skills": loaded leniently, reported strictly):
 * every way its frontmatter departs from the Agent Skills specification, so an operator sees exactly
 * what a strict client (one that validates as the specification's reference validator does) would
 * refuse, though the console loads the skill.
 */

/** The top-level fields the Agent Skills specification defines; a strict client refuses any other. */
export const SPEC_FIELDS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"] as const;
/** Fields outside the specification that the console itself reads (seed 000's richer frontmatter, sandbox). */
export const CONSOLE_FIELDS: ReadonlySet<string> = new Set(["when_to_use", "activation", "tools", "class", "env_allow", "timeout_seconds", "sandbox"]);
/** Fields outside the specification that the console reads as OpenClaw's gating (DESIGN.md leniency list). */
export const GATING_FIELDS: ReadonlySet<string> = new Set(["os", "requires", "primaryEnv"]);

/** The specification's name rule: lowercase letters, digits and single hyphens, not at either end. */
const SPEC_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** Longest name, description and compatibility the specification allows, in characters. */
export const SPEC_NAME_MAX = 64;
export const SPEC_DESCRIPTION_MAX = 1024;
export const SPEC_COMPATIBILITY_MAX = 500;

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

/**
 * The deviations of one frontmatter (`frontmatter`, as parsed) in the folder `folderName`, each one
 * short sentence, in field order: a missing, non-string, too long or ill-formed `name` or one that is
 * not its folder's; a missing, empty or over-1024-character `description`; a non-string `license`; a
 * `compatibility` that is not a string of 1–500 characters; `metadata` that is not a mapping of string
 * values; an `allowed-tools` that is not a (space-separated) string; and every other top-level field
 * (saying which ones the console reads anyway). Empty for a strictly valid frontmatter. Pure.
 */
export function specDeviations(frontmatter: Record<string, unknown>, folderName: string): string[] {
  const found: string[] = [];
  const name = frontmatter.name;
  if (name === undefined || name === null || name === "") found.push("name is missing (required)");
  else if (typeof name !== "string") found.push(`name is ${kindOf(name)}, not a string`);
  else {
    if (name.length > SPEC_NAME_MAX) found.push(`name is ${name.length} characters, longer than ${SPEC_NAME_MAX}`);
    if (!SPEC_NAME.test(name)) found.push(`name ${JSON.stringify(name)} is not only lowercase letters, digits and single inner hyphens`);
    if (name !== folderName) found.push(`name ${JSON.stringify(name)} is not its folder's name ${JSON.stringify(folderName)}`);
  }
  const description = frontmatter.description;
  if (description === undefined || description === null) found.push("description is missing (required)");
  else if (typeof description !== "string") found.push(`description is ${kindOf(description)}, not a string`);
  else if (description.trim() === "") found.push("description is empty");
  else if (description.length > SPEC_DESCRIPTION_MAX) found.push(`description is ${description.length} characters, longer than ${SPEC_DESCRIPTION_MAX}`);
  if (frontmatter.license !== undefined && typeof frontmatter.license !== "string") found.push(`license is ${kindOf(frontmatter.license)}, not a string`);
  const compatibility = frontmatter.compatibility;
  if (compatibility !== undefined) {
    if (typeof compatibility !== "string") found.push(`compatibility is ${kindOf(compatibility)}, not a string`);
    else if (compatibility.length === 0 || compatibility.length > SPEC_COMPATIBILITY_MAX) found.push(`compatibility is ${compatibility.length} characters; 1 to ${SPEC_COMPATIBILITY_MAX} are allowed`);
  }
  const metadata = frontmatter.metadata;
  if (metadata !== undefined) {
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) found.push(`metadata is ${kindOf(metadata)}, not a mapping`);
    else {
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value !== "string") found.push(`metadata.${key} is ${kindOf(value)}, not a string`);
      }
    }
  }
  const allowedTools = frontmatter["allowed-tools"];
  if (allowedTools !== undefined && typeof allowedTools !== "string") found.push(`allowed-tools is ${kindOf(allowedTools)}, not a space-separated string`);
  for (const key of Object.keys(frontmatter)) {
    if ((SPEC_FIELDS as readonly string[]).includes(key)) continue;
    const note = CONSOLE_FIELDS.has(key)
      ? " (the console reads it)"
      : GATING_FIELDS.has(key)
        ? " (the console reads it as OpenClaw gating)"
        : key.startsWith("metadata.")
          ? ` (the console reads it as ${key.slice("metadata.".length)} under metadata)`
          : "";
    found.push(`field ${JSON.stringify(key)} is not in the specification${note}`);
  }
  return found;
}
