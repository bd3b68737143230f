import { apiRoute, stringParam } from "@/lib/server/http/api-route";
import { personaListsSkill, requirePersona } from "@/lib/server/personas/persona-skills";
import { getRegistry } from "@/lib/server/skills/registry";
import { toPublicSkill } from "@/lib/server/skills/registered-skill";

/**
 * `GET /api/v1/skills?category=&q=&persona=` → `{skills: Skill[]}` sorted by category then name
 * (DESIGN.md). `persona` keeps only the skills that persona's lists (and, for native skills, its
 * categories) let it call; an unknown persona answers 400 `bad_request`.
 */
export const GET = apiRoute(async (request: Request) => {
  const url = new URL(request.url);
  const personaName = stringParam(url, "persona");
  const persona = personaName === undefined ? null : await requirePersona(personaName);
  const registry = await getRegistry();
  const skills = registry.list({ category: stringParam(url, "category"), q: stringParam(url, "q") }).map((skill) => toPublicSkill(skill));
  return Response.json({ skills: persona ? skills.filter((skill) => personaListsSkill(persona, skill)) : skills });
});
