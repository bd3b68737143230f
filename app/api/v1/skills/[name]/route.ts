import { AppError } from "@/lib/server/errors";
import { apiRoute } from "@/lib/server/http/api-route";
import { resolveCallPersona } from "@/lib/server/policy/guard";
import { getRegistry } from "@/lib/server/skills/registry";
import { toPublicSkill } from "@/lib/server/skills/registered-skill";
import { visibleSkill } from "@/lib/server/tools/read-skill-tools";

/**
 * `GET /api/v1/skills/{name}` → `{skill: Skill}`; for a native skill this is seed 004's level 2, so it
 * carries `instructions` (the SKILL.md body) besides the level-1 fields and resource lists. 404
 * `not_found` for an unknown name. An API token acts as its persona here as everywhere (DESIGN.md: a
 * persona's lists and categories apply to every tool): a skill that persona may not see answers 403
 * `forbidden`, as skill_load does; a signed-in person reads any skill.
 */
export const GET = apiRoute(async (_request: Request, context: { params: Promise<{ name: string }> }, identity) => {
  const { name } = await context.params;
  const registry = await getRegistry();
  const skill = identity.token ? visibleSkill(await resolveCallPersona(identity, null), registry, name) : registry.get(name);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(name)}`);
  return Response.json({ skill: toPublicSkill(skill, 2) });
});
