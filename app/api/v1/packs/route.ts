import { Readable } from "node:stream";
import { config } from "@/lib/server/env";
import { AppError } from "@/lib/server/errors";
import { apiRoute, stringParam } from "@/lib/server/http/api-route";
import { parseRequestBody } from "@/lib/server/http/request-body";
import { listPacks, stagePack } from "@/lib/server/packs/pack-store";
import { PACK_REQUEST_MAX_BYTES, PACK_STAGE_SCHEMA, type PackStageBody } from "@/lib/validation/pack-requests";

/** `GET /api/v1/packs` (admin) → 200 `{packs: [Pack]}`, every staged, enabled and earlier version, newest first (DESIGN.md "Skill packs"). */
export const GET = apiRoute(async () => Response.json({ packs: await listPacks() }), { role: "admin" });

/**
 * `POST /api/v1/packs` (admin, a person; DESIGN.md "Skill packs") stages a pack → 201 `{pack}` with
 * status `staged`. The body is JSON `{source: {type: "folder", path} | {type: "git", url, ref}}` (with
 * `plugin` to stage a marketplace's plugin), or a `.tar.gz` sent as `application/gzip` (`?plugin=`
 * likewise), at most PACK_MAX_BYTES (413 past it). 400 with the reason when the pack is refused
 * (no pack.json, a broken manifest, a duplicate or taken name, an escaping or oversize archive, a bad
 * signature, an unsigned remote pack, a git ref that does not exist); nothing is kept then.
 */
export const POST = apiRoute(
  async (request, _context, identity) => {
    const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type === "application/gzip" || type === "application/x-gzip" || type === "application/octet-stream") {
      const limit = config().packMaxBytes;
      const length = Number(request.headers.get("content-length") ?? "0");
      if (length > limit) throw new AppError("too_large", `the upload is ${length} bytes; PACK_MAX_BYTES allows ${limit}`);
      if (!request.body) throw new AppError("bad_request", "send the pack's .tar.gz as the request body");
      const plugin = stringParam(new URL(request.url), "plugin");
      const body = Readable.fromWeb(request.body as import("node:stream/web").ReadableStream<Uint8Array>);
      const pack = await stagePack(identity, { type: "upload", body, ...(plugin ? { plugin } : {}) });
      return Response.json({ pack }, { status: 201 });
    }
    const { source } = await parseRequestBody<PackStageBody>(request, PACK_STAGE_SCHEMA, "a pack's source", PACK_REQUEST_MAX_BYTES);
    return Response.json({ pack: await stagePack(identity, source) }, { status: 201 });
  },
  { role: "admin", person: "stage packs" },
);
