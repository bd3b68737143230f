import { AppError } from "@/lib/server/errors";
import { apiRoute, stringParam } from "@/lib/server/http/api-route";
import { findPersona } from "@/lib/server/personas/persona-store";
import { getRegistry } from "@/lib/server/skills/registry";
import { personaSkillsPrompt } from "@/lib/server/tools/persona-prompt";

/**
 * `GET /api/v1/personas/{name}/prompt` (viewer and above) → `{"persona", "prompt"}`: the level-1 skills
 * block for that persona's system prompt (seed 004 task 4.6; personaSkillsPrompt); `?format=text`
 * answers the prompt alone as `text/plain; charset=utf-8`. 404 `not_found` for an unknown persona; an
 * API token may only read its own persona's prompt (403 `forbidden` otherwise).
 */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ name: string }> }, identity) => {
  const { name } = await context.params;
  const format = stringParam(new URL(request.url), "format") ?? "json";
  if (format !== "json" && format !== "text") throw new AppError("bad_request", "format must be json or text");
  if (identity.token && identity.token.persona !== name) {
    throw new AppError("forbidden", `token ${identity.token.name} acts as persona ${identity.token.persona}; it cannot read the prompt of persona ${name}`);
  }
  const persona = await findPersona(name);
  if (!persona) throw new AppError("not_found", `no persona named ${JSON.stringify(name)}`);
  const prompt = personaSkillsPrompt(persona, await getRegistry());
  if (format === "text") return new Response(prompt, { headers: { "content-type": "text/plain; charset=utf-8" } });
  return Response.json({ persona: persona.name, prompt });
});
