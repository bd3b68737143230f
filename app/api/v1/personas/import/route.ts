import { apiRoute } from "@/lib/server/http/api-route";
import { importPersonas } from "@/lib/server/personas/import-personas";
import { readYamlBody } from "@/lib/server/personas/read-yaml-body";

/**
 * `POST /api/v1/personas/import` with a `text/yaml` or `application/yaml` body (admin): a list of
 * personas, or one, created or replaced by name all at once → 200 `{personas, created, replaced}`.
 * Any error changes nothing: 400 naming the persona and field (details `{persona, field}`), 413 past
 * 256 KiB.
 */
export const POST = apiRoute(
  async (request: Request, _context: unknown, identity) => Response.json(await importPersonas(identity, await readYamlBody(request))),
  { role: "admin" },
);
