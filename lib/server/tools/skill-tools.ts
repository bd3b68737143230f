import type { Persona } from "@/lib/types/persona";
import type { JsonSchema } from "@/lib/types/skill";
import { MAX_SCRIPT_ARG_LENGTH, MAX_SCRIPT_ARGS } from "../skills/native/run-script-schema";
import type { RegisteredSkill, SubprocessSkill } from "../skills/registered-skill";
import type { SkillRegistry } from "../skills/registry";
import { personaListsSkill } from "../personas/persona-skills";

/** One LLM tool: its function name, what it does (for the model), and the JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (draft-07 and 2020-12 compatible) of the arguments object; its root is `type: object`. */
  parameters: JsonSchema;
}

/** The names of the four agent tools of seed 004 (tasks 4.2–4.4 and 6.3), in the order they are listed. */
export const SKILL_TOOL_NAMES = ["skill_search", "skill_load", "skill_read_resource", "skill_run_script"] as const;

/** Name of one of the four agent tools. */
export type SkillToolName = (typeof SKILL_TOOL_NAMES)[number];

/** True when `name` is one of the four `skill_*` tools. */
export function isSkillToolName(name: string): name is SkillToolName {
  return (SKILL_TOOL_NAMES as readonly string[]).includes(name);
}

/** Longest `query` of skill_search, in characters. */
export const MAX_SEARCH_QUERY_LENGTH = 500;
/** Most matches skill_search returns (its `limit` maximum). */
export const MAX_SEARCH_LIMIT = 50;
/** Matches skill_search returns when `limit` is absent. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** Longest `skill_name` a tool accepts, in characters. */
const MAX_SKILL_NAME_LENGTH = 256;
/** Longest resource `path` a tool accepts, in characters. */
const MAX_RESOURCE_PATH_LENGTH = 4096;

/**
 * Tool function names the function-calling APIs accept (OpenAI and Anthropic: letters, digits, `_` and
 * `-`, at most 64 characters); a subprocess skill whose name breaks this is not offered as a tool.
 */
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const skillNameProperty = (what: string): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: MAX_SKILL_NAME_LENGTH,
  description: `Exact name of the skill ${what}, as skill_search or the skills list in your instructions gives it (e.g. "log-analyzer").`,
});

/**
 * The four agent tools of seed 004 with their argument schemas (DESIGN.md "Native skills": agent tools).
 * Every schema is an object with `additionalProperties: false`, valid under draft-07 and 2020-12.
 */
export const SKILL_TOOLS: readonly ToolDefinition[] = [
  {
    name: "skill_search",
    description:
      "Find skills relevant to a task. Searches the names, descriptions and 'when to use' notes of the skills you may use " +
      'and returns {"matches": [{name, description, category, confidence}]}, best first, with a confidence from 0 to 1. ' +
      "Call skill_load on a match before using it.",
    parameters: {
      type: "object",
      additionalProperties: false,
      required: ["query"],
      properties: {
        query: {
          type: "string",
          minLength: 1,
          maxLength: MAX_SEARCH_QUERY_LENGTH,
          description: 'What you need to do, in a few words (e.g. "analyze nginx error logs", "deploy a service").',
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: MAX_SEARCH_LIMIT,
          default: DEFAULT_SEARCH_LIMIT,
          description: `Most matches to return (1–${MAX_SEARCH_LIMIT}, default ${DEFAULT_SEARCH_LIMIT}).`,
        },
      },
    },
  },
  {
    name: "skill_load",
    description:
      "Load a skill's full instructions (its SKILL.md body) and the list of its resource files (scripts/, references/, " +
      "templates/, assets/ and every other file of its folder), its class and whether it is available. For a subprocess skill, returns its argument schema " +
      "(call it as its own tool). Load a skill before following or running it.",
    parameters: {
      type: "object",
      additionalProperties: false,
      required: ["skill_name"],
      properties: { skill_name: skillNameProperty("to load") },
    },
  },
  {
    name: "skill_read_resource",
    description:
      "Read one resource file of a skill on demand: any file of its folder but SKILL.md (scripts/, references/, FORMS.md, …), " +
      "named by its path relative to the skill's folder as skill_load lists it. Returns {path, size, mediaType, binary, " +
      "truncated, text, description}; text files come back as text, binary files are only described.",
    parameters: {
      type: "object",
      additionalProperties: false,
      required: ["skill_name", "path"],
      properties: {
        skill_name: skillNameProperty("that holds the file"),
        path: {
          type: "string",
          minLength: 1,
          maxLength: MAX_RESOURCE_PATH_LENGTH,
          description: 'Path of the file relative to the skill\'s folder, e.g. "references/guide.md" or "scripts/check.sh".',
        },
      },
    },
  },
  {
    name: "skill_run_script",
    description:
      "Run one script of a skill on the console's host, with args as its command-line arguments, and return " +
      "{callId, status, exitCode, error, output} where output is the script's stdout. The run goes through the console's " +
      "policy: depending on the skill's class and your persona it runs at once, waits for a person's confirmation or " +
      "two approvers (you then get the call id and a link instead of output), or is refused.",
    parameters: {
      type: "object",
      additionalProperties: false,
      required: ["skill_name", "script"],
      properties: {
        skill_name: skillNameProperty("whose script to run"),
        script: {
          type: "string",
          minLength: 1,
          maxLength: MAX_RESOURCE_PATH_LENGTH,
          description: 'Script name relative to the skill\'s scripts/ folder, e.g. "check.sh" for scripts/check.sh.',
        },
        args: {
          type: "array",
          items: { type: "string", maxLength: MAX_SCRIPT_ARG_LENGTH },
          maxItems: MAX_SCRIPT_ARGS,
          default: [],
          description: "Command-line arguments passed to the script, one string each (default none).",
        },
      },
    },
  },
];

/** The definition of one of the four `skill_*` tools. */
export function skillTool(name: SkillToolName): ToolDefinition {
  return SKILL_TOOLS.find((tool) => tool.name === name)!;
}

const CLASS_NOTE: Record<SubprocessSkill["class"], string> = {
  safe: "Class safe: runs at once.",
  mutating: "Class mutating: changes things; depending on your persona it may wait for a person's confirmation or be refused.",
  dangerous: "Class dangerous: depending on your persona it may wait for two approvers or be refused.",
};

/**
 * True when a subprocess skill can be offered as an LLM tool (the `GET /api/v1/tools` contract): its
 * schema's root is `type: "object"`, its name is a valid function name and does not collide with a
 * `skill_*` tool. Availability and the persona are checked by the caller. Pure.
 */
export function isToolShaped(skill: RegisteredSkill): skill is SubprocessSkill {
  return skill.kind === "subprocess" && skill.schema.type === "object" && TOOL_NAME_PATTERN.test(skill.name) && !isSkillToolName(skill.name);
}

/** The tool definition of a subprocess skill: its manifest name, description (with a note on its class) and args schema. */
export function subprocessToolDefinition(skill: SubprocessSkill): ToolDefinition {
  return { name: skill.name, description: `${skill.description.trim()} ${CLASS_NOTE[skill.class]}`, parameters: skill.schema };
}

/**
 * The LLM tools a persona gets (DESIGN.md `GET /api/v1/tools`, issue 5 point 5): the four `skill_*`
 * tools first, then each available subprocess skill the persona lists (personaListsSkill), tool-shaped
 * (isToolShaped), in the registry's order (category, then name). Pure over the registry snapshot.
 */
export function toolDefinitionsFor(persona: Persona, registry: SkillRegistry): ToolDefinition[] {
  const subprocessTools = registry
    .list()
    .filter((skill): skill is SubprocessSkill => isToolShaped(skill) && skill.available && personaListsSkill(persona, skill))
    .map(subprocessToolDefinition);
  return [...SKILL_TOOLS, ...subprocessTools];
}

/** The function-calling dialects `GET /api/v1/tools?format=` serves. */
export const TOOL_FORMATS = ["openai", "anthropic"] as const;
/** One function-calling dialect. */
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/**
 * Writes tool definitions in a function-calling dialect: openai → `{type: "function", function: {name,
 * description, parameters}}`, anthropic → `{name, description, input_schema}`. Pure.
 */
export function formatTools(tools: readonly ToolDefinition[], format: ToolFormat): Array<Record<string, unknown>> {
  return tools.map((tool) =>
    format === "openai"
      ? { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }
      : { name: tool.name, description: tool.description, input_schema: tool.parameters },
  );
}
