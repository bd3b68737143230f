import { AppError } from "@/lib/server/errors";
import { apiRoute } from "@/lib/server/http/api-route";
import { getRegistry } from "@/lib/server/skills/registry";
import { toPublicSkill } from "@/lib/server/skills/registered-skill";

/**
 * `GET /api/v1/skills/{name}` → `{skill: Skill}`; for a native skill this is seed 004's level 2, so it
 * carries `instructions` (the SKILL.md body) besides the level-1 fields and resource lists. 404
 * `not_found` for an unknown name.
 */
export const GET = apiRoute(async (_request: Request, context: { params: Promise<{ name: string }> }) => {
  const { name } = await context.params;
  const skill = (await getRegistry()).get(name);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(name)}`);
  return Response.json({ skill: toPublicSkill(skill, 2) });
});
