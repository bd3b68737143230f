"use client";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { DEFAULT_PERSONA_NAME, type Persona } from "@/lib/types/persona";
import { MODE_SUMMARY, MODE_TONE } from "./permission-mode";

function Patterns({ values, empty }: { values: readonly string[]; empty: string }) {
  if (values.length === 0) return <span className="text-xs text-zinc-400 italic">{empty}</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {values.map((value) => (
        <code key={value} className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-800">
          {value}
        </code>
      ))}
    </span>
  );
}

/**
 * Every persona in a table: name (the default marked), permission mode (with what it allows as a
 * tooltip), description, allow, deny and categories, and Edit / Delete buttons. `editReason` (why the
 * viewer cannot change personas) disables both with that reason; the default persona's Delete is
 * disabled with its own reason.
 */
export function PersonasTable({ personas, editReason, onEdit, onDelete }: { personas: Persona[]; editReason: string | null; onEdit: (persona: Persona) => void; onDelete: (name: string) => void }) {
  return (
    <Table caption="Personas">
      <TableHead>
        <Th>Name</Th>
        <Th>Permission mode</Th>
        <Th>Allow</Th>
        <Th>Deny</Th>
        <Th>Categories</Th>
        <Th>
          <span className="sr-only">Actions</span>
        </Th>
      </TableHead>
      <TableBody>
        {personas.map((persona) => {
          const isDefault = persona.name === DEFAULT_PERSONA_NAME;
          const deleteReason = editReason ?? (isDefault ? "The default persona cannot be deleted: calls that name no persona run under it." : null);
          return (
            <Tr key={persona.name} data-testid={`persona-row-${persona.name}`}>
              <Td label="Name" className="max-w-72">
                <div className="flex items-center gap-2">
                  <span className="font-mono text-[13px] font-medium">{persona.name}</span>
                  {isDefault ? <Badge tone="blue">default</Badge> : null}
                </div>
                {persona.description ? <p className="mt-0.5 line-clamp-2 text-xs text-zinc-500">{persona.description}</p> : null}
              </Td>
              <Td label="Permission mode">
                <Badge tone={MODE_TONE[persona.permission_mode]} title={MODE_SUMMARY[persona.permission_mode]}>
                  {persona.permission_mode}
                </Badge>
              </Td>
              <Td label="Allow">
                <Patterns values={persona.skills.allow} empty="nothing" />
              </Td>
              <Td label="Deny">
                <Patterns values={persona.skills.deny} empty="none" />
              </Td>
              <Td label="Categories">{persona.categories === undefined ? <span className="text-xs text-zinc-500">all</span> : <Patterns values={persona.categories} empty="none" />}</Td>
              <Td className="text-right whitespace-nowrap">
                <span className="inline-flex gap-1.5">
                  <Button size="sm" disabled={editReason !== null} title={editReason ?? undefined} aria-label={`Edit persona ${persona.name}`} onClick={() => onEdit(persona)}>
                    Edit
                  </Button>
                  <Button size="sm" variant="ghost" disabled={deleteReason !== null} title={deleteReason ?? undefined} aria-label={`Delete persona ${persona.name}`} onClick={() => onDelete(persona.name)}>
                    Delete
                  </Button>
                </span>
              </Td>
            </Tr>
          );
        })}
      </TableBody>
    </Table>
  );
}
