import { randomUUID } from "node:crypto";
import type { Persona as PersonaRow } from "@prisma/client";
import { DEFAULT_PERSONA_NAME, PERMISSION_MODES, type PermissionMode, type Persona } from "@/lib/types/persona";
import { db } from "../db";

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

/** The persona named `name`, or null. */
export async function findPersona(name: string): Promise<Persona | null> {
  const row = await db().persona.findUnique({ where: { name } });
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
