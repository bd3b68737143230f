import { randomUUID } from "node:crypto";
import type { Persona as PersonaRow } from "@prisma/client";
import type { Identity } from "@/lib/types/identity";
import { DEFAULT_PERSONA_NAME, PERMISSION_MODES, type PermissionMode, type Persona } from "@/lib/types/persona";
import { db } from "../db";
import { statements } from "../db-statements";
import type { PersonaInput } from "./persona-input";

/** The API shape of a persona row (list columns are JSON text). */
export function toPersona(row: PersonaRow): Persona {
  const persona: Persona = {
    name: row.name,
    description: row.description,
    permission_mode: (PERMISSION_MODES as readonly string[]).includes(row.permissionMode) ? (row.permissionMode as PermissionMode) : "read-only",
    skills: { allow: JSON.parse(row.allow) as string[], deny: JSON.parse(row.deny) as string[] },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
  if (row.categories !== null) persona.categories = JSON.parse(row.categories) as string[];
  return persona;
}

/** The columns of a persona row for a validated input (lists as JSON text; absent categories = null). */
export function toPersonaRow(input: PersonaInput): Pick<PersonaRow, "name" | "description" | "permissionMode" | "allow" | "deny" | "categories"> {
  return {
    name: input.name,
    description: input.description,
    permissionMode: input.permission_mode,
    allow: JSON.stringify(input.skills.allow),
    deny: JSON.stringify(input.skills.deny),
    categories: input.categories === undefined ? null : JSON.stringify(input.categories),
  };
}

/** The persona as its YAML spells it: the five fields in order, without times; `categories` only when set. */
export function toPersonaInput(persona: Persona): PersonaInput {
  const input: PersonaInput = {
    name: persona.name,
    description: persona.description,
    permission_mode: persona.permission_mode,
    skills: { allow: [...persona.skills.allow], deny: [...persona.skills.deny] },
  };
  if (persona.categories !== undefined) input.categories = [...persona.categories];
  return input;
}

/** Who made a change, as the audit trail spells it: the person's email, or `token:<name> (<owner>)`. */
export function auditActor(identity: Identity): { actor: string; actorId: string } {
  const actor = identity.via === "token" && identity.token ? `token:${identity.token.name} (${identity.email})` : identity.email;
  return { actor, actorId: identity.userId };
}

/** The persona named `name`, or null. */
export async function findPersona(name: string): Promise<Persona | null> {
  // Raw SQL: every call reads its persona (a model query costs ~1 ms of CPU more).
  const [row] = await statements().$queryRaw<PersonaRow[]>`SELECT * FROM "Persona" WHERE "name" = ${name}`;
  return row ? toPersona(row) : null;
}

/** Every persona, by name. */
export async function listPersonas(): Promise<Persona[]> {
  return (await db().persona.findMany({ orderBy: { name: "asc" } })).map(toPersona);
}

/**
 * Creates the default persona when it is missing (issue 4 point 2: a default read-only persona exists
 * on first start): `default`, read-only, `skills.allow: ["*"]`. Two consoles starting together: the
 * unique name makes the second insert a no-op.
 */
export async function ensureDefaultPersona(): Promise<void> {
  if (await db().persona.findUnique({ where: { name: DEFAULT_PERSONA_NAME }, select: { id: true } })) return;
  await db().persona.createMany({
    data: [
      {
        id: randomUUID(),
        name: DEFAULT_PERSONA_NAME,
        description: "Runs safe skills only. Calls that name no persona run under it.",
        permissionMode: "read-only",
        allow: JSON.stringify(["*"]),
        deny: "[]",
        categories: null,
      },
    ],
  }).catch((error: unknown) => {
    // Another console created it between the read and the insert.
    if ((error as { code?: string }).code !== "P2002") throw error;
  });
}
