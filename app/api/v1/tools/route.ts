import { AppError } from "@/lib/server/errors";
import { apiRoute, stringParam } from "@/lib/server/http/api-route";
import { getRegistry } from "@/lib/server/skills/registry";
import { formatTools, TOOL_FORMATS, toolDefinitionsFor, type ToolFormat } from "@/lib/server/tools/skill-tools";
import { resolveToolPersona } from "@/lib/server/tools/tool-persona";

/**
 * `GET /api/v1/tools?persona=&format=openai|anthropic` (viewer and above) → `{"tools": [...]}`: the LLM
 * function-calling definitions for a persona (issue 5 point 5) — the four `skill_*` tools, then each
 * available subprocess skill the persona lists. `format` defaults to openai. A person must name the
 * persona (400 without one, 400 for an unknown one); a token gets its own persona, and naming another
 * answers 403 `forbidden`. An unknown format answers 400 `bad_request`.
 */
export const GET = apiRoute(async (request: Request, _context: unknown, identity) => {
  const url = new URL(request.url);
  const format = stringParam(url, "format") ?? "openai";
  if (!(TOOL_FORMATS as readonly string[]).includes(format)) {
    throw new AppError("bad_request", `format must be one of ${TOOL_FORMATS.join(", ")}`);
  }
  const persona = await resolveToolPersona(identity, stringParam(url, "persona") ?? null, { required: true });
  const tools = toolDefinitionsFor(persona, await getRegistry());
  return Response.json({ tools: formatTools(tools, format as ToolFormat) });
});
