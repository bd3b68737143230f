import { apiRoute, stringParam } from "@/lib/server/http/api-route";
import { personaListsSkill, requirePersona } from "@/lib/server/personas/persona-skills";
import { resolveCallPersona } from "@/lib/server/policy/guard";
import { getRegistry } from "@/lib/server/skills/registry";
import { toPublicSkill } from "@/lib/server/skills/registered-skill";
import { toOngridSkillList } from "@/lib/server/ongrid/skill-summary";

/**
 * `GET /api/v1/skills?category=&q=&persona=` → `{skills: Skill[]}` sorted by category then name
 * (DESIGN.md). `persona` keeps only the skills that persona's lists (and, for native skills, its
 * categories) let it call; an unknown persona answers 400 `bad_request`. An API token always lists
 * as its own persona (naming another answers 403 `forbidden`), as the agent tools do. The answer also
 * carries ongrid's `{items, total}` of the same skills (DESIGN.md "Integrations": the ongrid drop-in).
 */
export const GET = apiRoute(async (request: Request, _context: unknown, identity) => {
  const url = new URL(request.url);
  const personaName = stringParam(url, "persona") ?? null;
  const persona = identity.token ? await resolveCallPersona(identity, personaName) : personaName === null ? null : await requirePersona(personaName);
  const registry = await getRegistry();
  const skills = registry.list({ category: stringParam(url, "category"), q: stringParam(url, "q") }).filter((skill) => persona === null || personaListsSkill(persona, skill));
  const listed = skills.map((skill) => toPublicSkill(skill));
  return Response.json({ skills: listed, ...toOngridSkillList(listed) });
});
