import type { Persona } from "@/lib/types/persona";
import { personaListsSkill } from "../personas/persona-skills";
import type { NativeSkill } from "../skills/registered-skill";
import type { SkillRegistry } from "../skills/registry";

/** The preamble of the skills block: what skills are and which tools reach them (seed 004 task 4.6). */
export const SKILLS_PROMPT_PREAMBLE =
  "## Skills\n\n" +
  "You can use the skills listed below: folders of instructions, scripts and reference files for particular tasks. " +
  "Before you use a skill, call skill_load with its name to read its instructions. " +
  "Call skill_search to find a skill for a task. " +
  "Read a skill's files with skill_read_resource and run its scripts with skill_run_script.\n";

/** What the block says when the persona may see no native skill. */
export const NO_SKILLS_LINE = "No skills are available to you.";

/** Collapses runs of whitespace (folded or literal YAML text) so a skill fits on one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The level-1 skills block of a persona's system prompt (`GET /api/v1/personas/{name}/prompt`, seed 004
 * task 4.6): SKILLS_PROMPT_PREAMBLE, a blank line, then one markdown line per available native skill the
 * persona may see (personaListsSkill: its lists and categories), in the registry's order (category,
 * then name): `- name (category): description` plus ` When to use: …` when the skill says, with
 * whitespace collapsed; or NO_SKILLS_LINE. Subprocess skills are left out: they reach the model as tools.
 * Ends with a newline. Pure over the registry snapshot.
 */
export function personaSkillsPrompt(persona: Persona, registry: SkillRegistry): string {
  const lines = registry
    .list()
    .filter((skill): skill is NativeSkill => skill.kind === "native" && skill.available && personaListsSkill(persona, skill))
    .map((skill) => {
      const whenToUse = skill.whenToUse ? oneLine(skill.whenToUse) : "";
      return `- ${skill.name} (${skill.category}): ${oneLine(skill.description)}${whenToUse ? ` When to use: ${whenToUse}` : ""}`;
    });
  return `${SKILLS_PROMPT_PREAMBLE}\n${lines.length > 0 ? lines.join("\n") : NO_SKILLS_LINE}\n`;
}
