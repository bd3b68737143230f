import { apiRoute, stringParam } from "@/lib/server/http/api-route";
import { getRegistry } from "@/lib/server/skills/registry";
import { toPublicSkill } from "@/lib/server/skills/registered-skill";

/** `GET /api/v1/skills?category=&q=` → `{skills: Skill[]}` sorted by category then name (DESIGN.md). */
export const GET = apiRoute(async (request: Request) => {
  const url = new URL(request.url);
  const registry = await getRegistry();
  const skills = registry.list({ category: stringParam(url, "category"), q: stringParam(url, "q") });
  return Response.json({ skills: skills.map(toPublicSkill) });
});
