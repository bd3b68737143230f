import { DEFAULT_PERSONA_NAME, PERMISSION_MODES, type PermissionMode, type Persona } from "@/lib/types/persona";
import { AppError } from "../errors";
import { MAX_DESCRIPTION_LENGTH, MAX_ENTRY_LENGTH, MAX_LIST_ENTRIES, PERSONA_NAME_SOURCE, RESERVED_PERSONA_NAMES } from "@/lib/validation/persona-requests";

/** A persona as written by a person (API body or one YAML mapping): the Persona without its times. */
export type PersonaInput = Omit<Persona, "createdAt" | "updatedAt">;

/** The persona name rule: lower-case letters, digits, `_` and `-`, starting with a letter or digit, 1–64 characters. */
export const PERSONA_NAME_PATTERN = new RegExp(PERSONA_NAME_SOURCE);

const FIELDS = ["name", "description", "permission_mode", "skills", "categories"] as const;
const SKILLS_FIELDS = ["allow", "deny"] as const;
/** Read-only fields of the API's answers, tolerated (and ignored) in JSON bodies so GET → edit → PUT works. */
const OUTPUT_ONLY_FIELDS = ["createdAt", "updatedAt"] as const;

/** Where a persona being validated came from, for messages: `persona "ops"` or `persona #2 of the YAML`. */
interface Source {
  /** Prefix of every message, e.g. `persona #2 ("ops")`; empty for a single JSON body. */
  label: string;
  /** Tolerate createdAt/updatedAt (JSON bodies); the YAML format has exactly the five fields. */
  allowOutputFields: boolean;
}

function refuse(source: Source, name: string | null, field: string, problem: string): never {
  const where = source.label === "" ? "" : `${source.label}: `;
  throw new AppError("bad_request", `${where}${field} ${problem}`, { persona: name, field });
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkKeys(source: Source, name: string | null, value: Record<string, unknown>, allowed: readonly string[], at: string): void {
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length === 0) return;
  const known = allowed.filter((key) => !(OUTPUT_ONLY_FIELDS as readonly string[]).includes(key));
  const field = at === "" ? unknown[0]! : `${at}.${unknown[0]!}`;
  refuse(source, name, field, `is not a persona field (${at === "" ? "a persona" : at} has ${known.join(", ")})`);
}

/**
 * One list of a persona: an array of at most MAX_LIST_ENTRIES non-empty, trimmed strings of at most
 * 200 characters. With `patterns`, entries are skill-name globs or `category:<glob>`: `category:`
 * needs a glob after it, and a leading `!` (a negation, which the lists do not have) is refused.
 */
function checkList(source: Source, name: string | null, value: unknown, field: string, patterns: boolean): string[] {
  const what = patterns ? "skill name globs or category:<glob>" : "category names";
  if (!Array.isArray(value)) refuse(source, name, field, `must be a list of ${what}`);
  if (value.length > MAX_LIST_ENTRIES) refuse(source, name, field, `has ${value.length} entries; at most ${MAX_LIST_ENTRIES} are allowed`);
  return value.map((entry: unknown, index) => {
    const at = `${field}[${index}]`;
    if (typeof entry !== "string" || entry.trim() === "") refuse(source, name, at, `must be a non-empty string (one of the ${what})`);
    if (entry !== entry.trim()) refuse(source, name, at, `${JSON.stringify(entry)} has leading or trailing spaces`);
    if (entry.length > MAX_ENTRY_LENGTH) refuse(source, name, at, `is longer than ${MAX_ENTRY_LENGTH} characters`);
    if (patterns && entry.startsWith("!")) refuse(source, name, at, `${JSON.stringify(entry)}: negation is not supported; list the skill in skills.deny instead`);
    if (patterns && entry === "category:") refuse(source, name, at, `"category:" needs a category glob after the colon, e.g. "category:ops"`);
    return entry;
  });
}

/**
 * Validates one persona as sent by a person (issue 4 point 2; DESIGN.md "Policy"): exactly the YAML
 * field names `name` (PERSONA_NAME_PATTERN, not a reserved name), `description` (string ≤ 2000,
 * default ""), `permission_mode` (one of PERMISSION_MODES), `skills` `{allow, deny}` (lists of skill
 * name globs or `category:<glob>`, each ≤ 200 entries, default empty — and an empty allow list calls
 * nothing), `categories` (absent = every category, else a list of category names). Unknown fields are
 * refused so a typo (`skils`) never creates a persona that silently calls nothing.
 * `label` prefixes messages (e.g. `persona #2 ("ops")` for an import); `allowOutputFields` tolerates
 * the answers' createdAt/updatedAt (JSON bodies only). Returns the normalised input; throws AppError
 * `bad_request` whose message names the field and whose details are `{persona, field}`.
 */
export function parsePersonaInput(raw: unknown, options: { label?: string; allowOutputFields?: boolean } = {}): PersonaInput {
  const source: Source = { label: options.label ?? "", allowOutputFields: options.allowOutputFields ?? false };
  if (!isMapping(raw)) refuse(source, null, "persona", "must be a mapping with name, description, permission_mode, skills, categories");
  const name = typeof raw.name === "string" ? raw.name : null;
  checkKeys(source, name, raw, source.allowOutputFields ? [...FIELDS, ...OUTPUT_ONLY_FIELDS] : FIELDS, "");

  if (raw.name === undefined) refuse(source, null, "name", "is required");
  if (name === null || !PERSONA_NAME_PATTERN.test(name)) {
    refuse(source, name, "name", `${JSON.stringify(raw.name)} must be 1-64 lower-case letters, digits, "_" or "-", starting with a letter or digit`);
  }
  if (RESERVED_PERSONA_NAMES.includes(name)) refuse(source, name, "name", `${JSON.stringify(name)} is reserved (it is a path under /api/v1/personas)`);

  const description = raw.description ?? "";
  if (typeof description !== "string") refuse(source, name, "description", "must be a string");
  if (description.length > MAX_DESCRIPTION_LENGTH) refuse(source, name, "description", `is longer than ${MAX_DESCRIPTION_LENGTH} characters`);

  if (raw.permission_mode === undefined) refuse(source, name, "permission_mode", `is required (one of ${PERMISSION_MODES.join(", ")})`);
  if (typeof raw.permission_mode !== "string" || !(PERMISSION_MODES as readonly string[]).includes(raw.permission_mode)) {
    refuse(source, name, "permission_mode", `${JSON.stringify(raw.permission_mode)} must be one of ${PERMISSION_MODES.join(", ")}`);
  }

  const skills = raw.skills ?? {};
  if (!isMapping(skills)) refuse(source, name, "skills", "must be a mapping with allow and deny lists");
  checkKeys(source, name, skills, SKILLS_FIELDS, "skills");
  const allow = checkList(source, name, skills.allow ?? [], "skills.allow", true);
  const deny = checkList(source, name, skills.deny ?? [], "skills.deny", true);

  const persona: PersonaInput = { name, description, permission_mode: raw.permission_mode as PermissionMode, skills: { allow, deny } };
  if (raw.categories !== undefined) {
    if (raw.categories === null) refuse(source, name, "categories", "must be a list of category names; leave it out for every category");
    persona.categories = checkList(source, name, raw.categories, "categories", false);
  }
  return persona;
}

/** True for the persona that calls naming none run under; it may be edited but never deleted. */
export function isDefaultPersona(name: string): boolean {
  return name === DEFAULT_PERSONA_NAME;
}
