import type { Identity } from "@/lib/types/identity";
import { DEFAULT_PERSONA_NAME, type Persona } from "@/lib/types/persona";
import type { SkillClass } from "@/lib/types/skill";
import { AppError } from "../errors";
import { findPersona } from "../personas/persona-store";
import { decideCall, type Decision } from "./decide";

/**
 * The persona a call runs under (DESIGN.md "Policy"; issue 4 points 1–2): an agent (API token) acts as
 * its token's persona, and naming another one is refused; a person runs under the persona they name,
 * or under `default` when they name none. Returns the stored persona. Throws AppError `forbidden`
 * (403) for a token naming another persona, `bad_request` (400) for a persona that does not exist.
 */
export async function resolveCallPersona(identity: Identity, named: string | null): Promise<Persona> {
  let name = named ?? DEFAULT_PERSONA_NAME;
  if (identity.token) {
    if (named !== null && named !== identity.token.persona) {
      throw new AppError("forbidden", `token ${identity.token.name} acts as persona ${identity.token.persona}; it cannot call under persona ${named}`);
    }
    name = identity.token.persona;
  }
  const persona = await findPersona(name);
  if (!persona) throw new AppError("bad_request", `unknown persona ${JSON.stringify(name)}`);
  return persona;
}

/**
 * The policy step every entry point runs before storing a call (issue 4 point 3): decideCall() for the
 * persona and the skill. Returns the decision when the call may go on (run, confirm or dual_sign);
 * throws AppError `forbidden` (403) with the decision's reason when the policy denies it. Never
 * starts anything.
 */
export function authorizeCall(persona: Persona, skill: { name: string; category: string; class: SkillClass; kind?: "subprocess" | "native" }): Exclude<Decision, { outcome: "deny" }> {
  const decision = decideCall(persona, skill);
  if (decision.outcome === "deny") throw new AppError("forbidden", `${skill.name}: ${decision.reason}`);
  return decision;
}
