import { revokeApiToken } from "@/lib/server/auth/api-tokens";
import { apiRoute } from "@/lib/server/http/api-route";

/** `DELETE /api/v1/tokens/{id}` (its owner, or an admin) → 200 `{token}` revoked; 404 otherwise. */
export const DELETE = apiRoute(
  async (_request: Request, context: { params: Promise<{ id: string }> }, identity) => {
    const { id } = await context.params;
    return Response.json({ token: await revokeApiToken(identity, id) });
  },
  { role: "operator" },
);
