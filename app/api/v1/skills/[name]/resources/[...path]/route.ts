import path from "node:path";
import { config } from "@/lib/server/env";
import { AppError } from "@/lib/server/errors";
import { apiRoute, stringParam } from "@/lib/server/http/api-route";
import { openSkillResource } from "@/lib/server/skills/native/read-resource";
import { getRegistry } from "@/lib/server/skills/registry";
import { visibleSkill } from "@/lib/server/tools/read-skill-tools";
import { resolveToolPersona } from "@/lib/server/tools/tool-persona";

// Every answer of this route: never sniffed into something runnable, never run as a page.
const SAFE_HEADERS = { "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox", "Cache-Control": "private, no-store" };

function attachmentDisposition(file: string): string {
  const name = path.posix.basename(file);
  const ascii = name.replace(/[^A-Za-z0-9._-]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * `GET /api/v1/skills/{name}/resources/{path…}` (viewer; seed 004 level 3, DESIGN.md "Native skills"):
 * any file of a native skill's folder but SKILL.md and hidden files (openSkillResource resolves
 * `..`, encodings and symlinks). Default: the file itself — text as `text/plain; charset=utf-8`,
 * binary as `application/octet-stream` with `Content-Disposition: attachment`, always with
 * `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox`; over
 * SKILL_RESOURCE_LIMIT_BYTES → 413 `too_large`. `?format=json` → `{"resource": ResourceContent}` (text
 * null for binary or over-limit files, with a description). 404 `not_found` for an unknown skill, a
 * subprocess skill, SKILL.md, a hidden file or any path outside the skill folder; 400 `bad_request` for another format.
 * An API token reads only the skills its persona may see (its lists and categories, as
 * skill_read_resource): 403 `forbidden` otherwise; a signed-in person reads any skill.
 */
export const GET = apiRoute(async (request: Request, context: { params: Promise<{ name: string; path?: string[] | string }> }, identity) => {
  const { name, path: segments } = await context.params;
  const format = stringParam(new URL(request.url), "format") ?? "raw";
  if (format !== "raw" && format !== "json") throw new AppError("bad_request", `format must be json or raw, not ${JSON.stringify(format)}`);
  const registry = await getRegistry();
  const skill = registry.get(name);
  if (!skill) throw new AppError("not_found", `no skill named ${JSON.stringify(name)}`);
  // An agent acts as its token's persona everywhere (review 5): the file skill_read_resource refuses is
  // not served here either.
  if (identity.token) visibleSkill(await resolveToolPersona(identity, null, { required: false }), registry, name);
  if (skill.kind !== "native") throw new AppError("not_found", `${skill.name} is a subprocess skill: it has no resource files`);
  const requested = Array.isArray(segments) ? segments.join("/") : (segments ?? "");
  const limit = config().resourceLimitBytes;
  const opened = await openSkillResource(skill, requested, limit);

  if (format === "json") return Response.json({ resource: opened.content }, { headers: SAFE_HEADERS });
  if (opened.tooLarge || !opened.bytes) {
    throw new AppError("too_large", `${requested} is ${opened.content.size} bytes, larger than the ${limit}-byte limit (SKILL_RESOURCE_LIMIT_BYTES); ask with ?format=json for its description`);
  }
  const headers: Record<string, string> = { ...SAFE_HEADERS, "Content-Length": String(opened.bytes.byteLength) };
  if (opened.content.binary) {
    headers["Content-Type"] = "application/octet-stream";
    headers["Content-Disposition"] = attachmentDisposition(requested);
  } else {
    headers["Content-Type"] = "text/plain; charset=utf-8";
  }
  return new Response(new Uint8Array(opened.bytes), { status: 200, headers });
});
