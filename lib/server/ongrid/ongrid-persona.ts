/*
 * ongrid drop-in (DESIGN.md "Integrations"): an ongrid persona `.md` file as our persona. The format
 * is read from github.com/ongridio/ongrid at commit 2e688933ac33ba95b46c1ebca348c4d282234446:
 * internal/manager/biz/aiops/chatruntime/agent_parser.go (ParseAgentMd: YAML frontmatter + body as the
 * system prompt; `name`, `description`, `when_to_use` required; unknown keys kept),
 * internal/manager/biz/aiops/chatruntime/types.go (Agent's yaml tags) and
 * internal/manager/biz/aiops/chatruntime/worker.go (filterToolsForAgentRole / matchesAny: `tools` is
 * an exact-name whitelist, empty = every tool; `disallowed_tools` wins, with exact, `*suffix` and
 * `prefix*` entries). Examples: agents/*.md in that repository.
 */
import { PERMISSION_MODES, type PermissionMode } from "@/lib/types/persona";
import { AppError } from "../errors";
import { parsePersonaInput, type PersonaInput } from "../personas/persona-input";
import { parseSkillMarkdown } from "../skills/native/parse-skill-markdown";

/** ongrid Agent fields the console's personas have no place for; dropping them never widens what a persona may call. */
const UNMAPPED_FIELDS = ["when_to_use", "capabilities", "can_delegate", "max_turns", "model", "critical_reminder", "initial_prompt", "background", "omit_claude_md", "metadata"];
/** ongrid Agent fields that map onto the persona. */
const MAPPED_FIELDS = ["name", "description", "tools", "disallowed_tools", "permission_mode"];

/** One ongrid persona file mapped: the persona, and what was not carried over. */
export interface MappedOngridPersona {
  persona: PersonaInput;
  notes: string[];
}

function refuse(file: string, message: string, field?: string): never {
  throw new AppError("bad_request", `${file}: ${message}`, { file, ...(field === undefined ? {} : { field }) });
}

/** A frontmatter list of tool names (ongrid: `[]string`), each trimmed as ongrid trims it; absent = []. */
function toolList(file: string, raw: Record<string, unknown>, field: string): string[] {
  const value = raw[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) refuse(file, `${field} must be a list of tool names (ongrid reads it as a YAML list)`, field);
  return value.map((entry: unknown, index) => {
    if (typeof entry !== "string" || entry.trim() === "") refuse(file, `${field}[${index}] must be a tool name`, field);
    return entry.trim();
  });
}

/**
 * ongrid's `tools` as `skills.allow`. ongrid matches them by exact name; here an entry with `*`, `?`
 * or `category:` is a pattern that allows more skills, so such an entry is refused, not widened.
 */
function allowOf(file: string, tools: string[]): string[] {
  tools.forEach((tool, index) => {
    if (/[*?]/.test(tool) || tool.startsWith("category:")) {
      refuse(file, `tools[${index}] ${JSON.stringify(tool)}: ongrid allows only the tool of exactly that name, and here it would be a pattern allowing more skills; list the skills by name`, "tools");
    }
  });
  return tools;
}

/**
 * ongrid's `disallowed_tools` as `skills.deny`: its exact, `*suffix` and `prefix*` entries deny the
 * same skills here, and any other `*` or `?` denies at least as many (deny wins, so that only
 * narrows). An entry starting with `!` (a literal name to ongrid, no negation) is refused: the lists
 * here have no such entry.
 */
function denyOf(file: string, denied: string[]): string[] {
  denied.forEach((entry, index) => {
    if (entry.startsWith("!")) refuse(file, `disallowed_tools[${index}] ${JSON.stringify(entry)}: an entry starting with "!" has no meaning in skills.deny; remove it`, "disallowed_tools");
  });
  return denied;
}

function permissionModeOf(file: string, raw: Record<string, unknown>, notes: string[]): PermissionMode {
  const value = raw.permission_mode;
  if (value === undefined || value === null || value === "") {
    notes.push("permission_mode is absent: imported as read-only, the narrowest mode.");
    return "read-only";
  }
  if (typeof value !== "string" || !(PERMISSION_MODES as readonly string[]).includes(value)) {
    refuse(file, `permission_mode ${JSON.stringify(value)} must be one of ${PERMISSION_MODES.join(", ")}`, "permission_mode");
  }
  return value as PermissionMode;
}

/**
 * Maps one ongrid persona `.md` file (`file` its name, `text` its content) to our persona (DESIGN.md
 * "Integrations"), denying when in doubt:
 * - `name` → name, `description` → description (both required, as `when_to_use` is: ongrid refuses a
 *   file without them);
 * - `tools` → `skills.allow` (exact names; an entry that would be a pattern here is refused; no tools
 *   — ongrid: every tool — allows nothing here, and a note says so);
 * - `disallowed_tools` → `skills.deny` (the same or more skills denied);
 * - `permission_mode` → permission_mode (the same three modes; absent → read-only, with a note);
 * - `categories` stays absent (every category; skills.allow still limits what it calls);
 * - everything else (`when_to_use`, `model`, `max_turns`, `capabilities`, …, unknown keys and the body,
 *   ongrid's system prompt) has no place in a persona here and is listed in a note.
 * The frontmatter is read by the SKILL.md parser (gray-matter with safe YAML). Returns the persona and
 * notes; throws AppError `bad_request` naming the file (and field, in `details`) for a file that is
 * not an ongrid persona or a field that cannot be mapped without widening, and parsePersonaInput's
 * refusals (name rules, lengths).
 */
export function mapOngridPersona(file: string, text: string): MappedOngridPersona {
  const parsed = parseSkillMarkdown(new TextEncoder().encode(text));
  if (!parsed.ok) {
    if (parsed.problem === "no_frontmatter") refuse(file, "is not an ongrid persona: it must start with a --- line opening its YAML frontmatter");
    refuse(file, parsed.message);
  }
  const raw = parsed.frontmatter;
  for (const field of ["name", "description", "when_to_use"]) {
    if (typeof raw[field] !== "string" || (raw[field] as string).trim() === "") refuse(file, `frontmatter is missing the required field ${field} (ongrid refuses the file too)`, field);
  }
  const notes: string[] = [];
  const tools = toolList(file, raw, "tools");
  if (tools.length === 0) notes.push("tools is empty: ongrid would let this persona use every tool; here it calls nothing until skills.allow lists skills.");
  const allow = allowOf(file, tools);
  const deny = denyOf(file, toolList(file, raw, "disallowed_tools"));
  const permission_mode = permissionModeOf(file, raw, notes);

  const dropped = Object.keys(raw).filter((key) => !MAPPED_FIELDS.includes(key));
  const known = dropped.filter((key) => UNMAPPED_FIELDS.includes(key));
  const unknown = dropped.filter((key) => !UNMAPPED_FIELDS.includes(key));
  if (known.length > 0) notes.push(`Not imported (personas here have no such field): ${known.join(", ")}.`);
  if (unknown.length > 0) notes.push(`Not imported (not an ongrid persona field): ${unknown.join(", ")}.`);
  if (parsed.body.trim() !== "") notes.push(`Not imported: the body, ongrid's system prompt (${parsed.body.trim().length} characters).`);

  const persona = parsePersonaInput({ name: (raw.name as string).trim(), description: (raw.description as string).trim(), permission_mode, skills: { allow, deny } }, { label: file });
  return { persona, notes };
}
