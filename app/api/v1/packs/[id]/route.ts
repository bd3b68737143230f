import { apiRoute } from "@/lib/server/http/api-route";
import { deletePack, getPack } from "@/lib/server/packs/pack-store";

/**
 * `GET /api/v1/packs/{id}` (admin) → 200 `{pack, files: [{path, change, diff}], filesAgainst,
 * digestList}`: the version's review with the diff of every file against what `filesAgainst` names
 * (DESIGN.md "Skill packs"). 404 for an unknown id.
 */
export const GET = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }) => {
    const { id } = await context.params;
    return Response.json(await getPack(id));
  },
  { role: "admin" },
);

/**
 * `DELETE /api/v1/packs/{id}` (admin, a person) → 200 `{pack}`: the enabled version is uninstalled
 * (its skills leave; their calls stay in the history), any other discarded. 404 unknown, 409 for the
 * version rolling the enabled one back would return to.
 */
export const DELETE = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    return Response.json({ pack: await deletePack(identity, id) });
  },
  { role: "admin", person: "remove packs" },
);
