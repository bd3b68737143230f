/*
 * ongrid drop-in (DESIGN.md "Integrations"): our Skill as ongrid's SkillSummary. Shapes read from
 * github.com/ongridio/ongrid at commit 2e688933ac33ba95b46c1ebca348c4d282234446,
 * internal/manager/biz/skill/service.go (SkillSummary, SkillParamDef, toSummary) and
 * internal/skill/types.go (Param.Type).
 */
import type { OngridParamType, OngridSkillList, OngridSkillParam, OngridSkillSummary } from "@/lib/types/ongrid";
import type { Skill } from "@/lib/types/skill";

/** JSON Schema scalar types and the ongrid `Param.Type` each one is. */
const PARAM_TYPE_OF: Record<string, OngridParamType> = { string: "string", integer: "int", number: "float", boolean: "bool", array: "array" };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * One property of a skill's args schema as ongrid's SkillParamDef, or null when `params` cannot say
 * it (an object, a union of types, no `type`, a `$ref`…). A string `enum` becomes type `enum` with its
 * values; `required`, `default` (any value but null) and `desc` (the property's `description`) are left
 * out when absent, as Go's `omitempty` leaves them out. Pure.
 */
function toParam(name: string, property: unknown, required: boolean): OngridSkillParam | null {
  if (!isRecord(property)) return null;
  const enumValues = property.enum;
  const stringEnum = Array.isArray(enumValues) && enumValues.length > 0 && enumValues.every((value) => typeof value === "string");
  const type = stringEnum && (property.type === undefined || property.type === "string") ? "enum" : typeof property.type === "string" ? PARAM_TYPE_OF[property.type] : undefined;
  if (type === undefined) return null;
  const param: OngridSkillParam = { name, type };
  if (required) param.required = true;
  if (property.default !== undefined && property.default !== null) param.default = property.default;
  if (typeof property.description === "string" && property.description !== "") param.desc = property.description;
  if (type === "enum") param.enum = enumValues as string[];
  return param;
}

/**
 * `skill` as ongrid's SkillSummary (DESIGN.md "Integrations": `key, name, description, class, category,
 * params[]`): `key` and `name` are the skill's name (the console has no separate label), `params` the
 * top-level properties of its args schema in their order (toParam), `scope` "manager" (the console
 * chooses the worker: ongrid's clients need no `edge_id`), and `inventory_only: true` when a property
 * has no ongrid param type — ongrid's SPA then sends people to the agent instead of a form that could
 * not fill it. Pure.
 */
export function toOngridSkillSummary(skill: Skill): OngridSkillSummary {
  const properties = isRecord(skill.schema.properties) ? skill.schema.properties : {};
  const required = new Set(Array.isArray(skill.schema.required) ? skill.schema.required.filter((name): name is string => typeof name === "string") : []);
  const params: OngridSkillParam[] = [];
  let inexpressible = false;
  for (const [name, property] of Object.entries(properties)) {
    const param = toParam(name, property, required.has(name));
    if (param === null) inexpressible = true;
    else params.push(param);
  }
  const summary: OngridSkillSummary = { key: skill.name, name: skill.name, description: skill.description, class: skill.class, scope: "manager", category: skill.category, params };
  if (inexpressible) summary.inventory_only = true;
  return summary;
}

/** ongrid's list envelope `{items, total}` of `skills` (DESIGN.md: `GET /api/v1/skills` also carries them). Pure. */
export function toOngridSkillList(skills: readonly Skill[]): OngridSkillList {
  return { items: skills.map(toOngridSkillSummary), total: skills.length };
}
