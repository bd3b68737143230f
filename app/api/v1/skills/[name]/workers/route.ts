import { apiRoute } from "@/lib/server/http/api-route";
import { resolveCallPersona } from "@/lib/server/policy/guard";
import { getRegistry } from "@/lib/server/skills/registry";
import { visibleSkill } from "@/lib/server/tools/read-skill-tools";
import { skillHolders } from "@/lib/server/workers/skill-holders";

/**
 * `GET /api/v1/skills/{name}/workers` (viewer and above) → 200 SkillHolders `{digest, digestError,
 * workers: [...]}`: the console's digest of the skill and each worker's copy, drift marked; 404 for an
 * unknown skill; for an API token, 403 for a skill outside its persona (as `GET /api/v1/skills/{name}`).
 */
export const GET = apiRoute(async (_request, context: { params: Promise<{ name: string }> }, identity) => {
  const { name } = await context.params;
  if (identity.token) visibleSkill(await resolveCallPersona(identity, null), await getRegistry(), name);
  return Response.json(await skillHolders(name));
});
