import { config } from "@/lib/server/env";
import { apiRoute, readJsonBody } from "@/lib/server/http/api-route";
import { deletePreset } from "@/lib/server/presets/delete-preset";
import { explainPreset, parsePresetRequest } from "@/lib/server/presets/preset-request";
import { updatePreset } from "@/lib/server/presets/update-preset";
import { checkRequestBody } from "@/lib/server/http/request-body";
import { jsonResponse } from "@/lib/server/http/stored-json";
import { PRESET_CHANGE_SCHEMA } from "@/lib/validation/call-requests";

type Context = { params: Promise<{ name: string; presetId: string }> };

/** `PUT /api/v1/skills/{name}/presets/{id}` `{name?, args?}` → 200 `{preset}`; 400, 404, 409. */
export const PUT = apiRoute(async (request: Request, context: Context) => {
  const { name, presetId } = await context.params;
  const raw = await readJsonBody(request, config().argsLimitBytes, config().argsMaxNodes, { keepText: ["args"] });
  const body = parsePresetRequest(checkRequestBody(raw, PRESET_CHANGE_SCHEMA, { what: "a preset", explain: explainPreset }));
  return jsonResponse({ preset: await updatePreset(name, presetId, body) });
}, { role: "operator" });

/** `DELETE /api/v1/skills/{name}/presets/{id}` → 200 `{preset}` (the deleted one); 404. */
export const DELETE = apiRoute(async (_request: Request, context: Context) => {
  const { name, presetId } = await context.params;
  return jsonResponse({ preset: await deletePreset(name, presetId) });
}, { role: "operator" });
