import type { Persona } from "@/lib/types/persona";
import type { Skill } from "@/lib/types/skill";
import { AppError } from "../errors";
import { categoriesAllow, listsAllow } from "../policy/skill-lists";
import { findPersona } from "./persona-store";

/**
 * True when `persona` may call `skill` as far as its lists go (DESIGN.md "Policy"; the `persona`
 * filter of `GET /api/v1/skills`): its `skills.allow`/`skills.deny` let the skill through (deny wins,
 * no allow entry = nothing), and for a native skill its `categories` (seed 004's filter; absent =
 * every category) include the skill's category. The permission mode is not consulted: a read-only
 * persona still sees a mutating skill it lists, and is refused (403) when it calls it. Pure.
 */
export function personaListsSkill(persona: Pick<Persona, "name" | "skills" | "categories">, skill: Pick<Skill, "name" | "category" | "kind">): boolean {
  if (!listsAllow(persona.skills, skill, persona.name).allowed) return false;
  return categoriesAllow(persona.categories, skill, persona.name).allowed;
}

/**
 * The persona named by a request's `persona` parameter. Throws AppError `bad_request` (400; DESIGN.md
 * decisions: an unknown persona is a bad request) when none has that name.
 */
export async function requirePersona(name: string): Promise<Persona> {
  const persona = await findPersona(name);
  if (!persona) throw new AppError("bad_request", `unknown persona ${JSON.stringify(name)}`);
  return persona;
}
