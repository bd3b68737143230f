import type { Identity } from "@/lib/types/identity";
import type { Persona } from "@/lib/types/persona";
import { AppError } from "../errors";
import { resolveCallPersona } from "../policy/guard";

/**
 * The persona the agent-tool endpoints act for (issue 5 point 5, the `GET /api/v1/tools` contract): an
 * API token always acts as its token's persona (naming another → 403 `forbidden`); a person names one,
 * or gets `default` when `required` is false. Throws AppError `bad_request` (400) when a person names
 * none and one is required, or names one that does not exist.
 */
export async function resolveToolPersona(identity: Identity, named: string | null, options: { required: boolean }): Promise<Persona> {
  if (identity.token === null && named === null && options.required) {
    throw new AppError("bad_request", "name the persona the tools are for: ?persona=<name>");
  }
  return resolveCallPersona(identity, named);
}
