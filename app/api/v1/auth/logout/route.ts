import { signOut } from "@/lib/server/auth/sign-in";
import { apiRoute } from "@/lib/server/http/api-route";

/** `POST /api/v1/auth/logout` → 200 `{ok: true}`: the session is deleted from the database and its cookie cleared. */
export const POST = apiRoute(async (request: Request) => {
  const headers = new Headers();
  for (const cookie of await signOut(request.headers)) headers.append("set-cookie", cookie);
  return Response.json({ ok: true }, { headers });
});
