import { config } from "@/lib/server/env";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { listPresets } from "@/lib/server/presets/list-presets";
import { explainPreset, parsePresetRequest } from "@/lib/server/presets/preset-request";
import { savePreset } from "@/lib/server/presets/save-preset";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { jsonResponse } from "@/lib/server/http/stored-json";
import { NEW_PRESET_SCHEMA } from "@/lib/validation/call-requests";

/** `GET /api/v1/skills/{name}/presets` → `{presets: ArgPreset[]}` sorted by name. */
export const GET = apiRoute(async (_request: Request, context: { params: Promise<{ name: string }> }) => {
  const { name } = await context.params;
  return jsonResponse({ presets: await listPresets(name) });
});

/** `POST /api/v1/skills/{name}/presets` `{name, args}` → 201 `{preset}`; 400, 404, 409 `conflict` for a taken name. */
export const POST = apiRoute(async (request: Request, context: { params: Promise<{ name: string }> }, identity) => {
  const { name } = await context.params;
  const raw = await readJsonBody(request, config().argsLimitBytes, config().argsMaxNodes, { keepText: ["args"] });
  const body = parsePresetRequest(checkRequestBody(raw, NEW_PRESET_SCHEMA, { what: "a preset", explain: explainPreset }));
  const preset = await savePreset({ skillName: name, name: body.name, args: body.args, createdBy: identity.email });
  return jsonResponse({ preset }, { status: 201 });
}, { role: "operator" });
