"use client";

import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DateTime } from "@/components/ui/date-time";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import type { SecretInfo } from "@/lib/types/secret";

/** Skills listed in a row before the rest fold under "N more". */
const LISTED = 8;

function SkillLink({ name, registered }: { name: string; registered: boolean | undefined }) {
  return (
    <li className="inline-flex max-w-full items-center gap-1">
      <Link href={`/skills/${encodeURIComponent(name)}`} className="min-w-0 font-mono text-[12.5px] break-all text-blue-700 hover:underline">
        {name}
      </Link>
      {registered === false ? <span className="text-[11px] text-amber-700">not registered</span> : null}
    </li>
  );
}

/** The skills of one secret as links to their pages, the first LISTED shown and the rest behind "N more". */
function SecretSkills({ skills, registered }: { skills: string[]; registered: ReadonlySet<string> | null }) {
  if (skills.length === 0) return <span className="text-xs text-zinc-500">no skill: it reaches no process</span>;
  const isRegistered = (name: string) => (registered === null ? undefined : registered.has(name));
  const shown = skills.slice(0, LISTED);
  const rest = skills.slice(LISTED);
  return (
    <div className="min-w-40">
      <ul className="flex flex-wrap gap-x-2.5 gap-y-0.5" aria-label="Skills given it">
        {shown.map((name) => (
          <SkillLink key={name} name={name} registered={isRegistered(name)} />
        ))}
      </ul>
      {rest.length > 0 ? (
        <details className="mt-0.5">
          <summary className="cursor-pointer text-xs text-zinc-600">{rest.length} more</summary>
          <ul className="mt-0.5 flex flex-wrap gap-x-2.5 gap-y-0.5">
            {rest.map((name) => (
              <SkillLink key={name} name={name} registered={isRegistered(name)} />
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

/**
 * The secrets as a table (DESIGN.md "Skill secrets": never a value): name, the skills given it (links
 * to their pages; a name no registered skill has is marked), fingerprint, whether this console's key
 * opens it (a clear warning when another key sealed it: calls needing it fail until it is set again),
 * who changed it last and when, and Change / Delete per row. `registered` holds the registered skills'
 * names (null while unknown).
 */
export function SecretsTable({
  secrets,
  registered,
  onEdit,
  onDelete,
}: {
  secrets: SecretInfo[];
  registered: ReadonlySet<string> | null;
  onEdit: (secret: SecretInfo) => void;
  onDelete: (secret: SecretInfo) => void;
}) {
  return (
    <Table caption="Skill secrets">
      <TableHead>
        <Th>Name</Th>
        <Th>Given to</Th>
        <Th>Fingerprint</Th>
        <Th>Key</Th>
        <Th>Updated</Th>
        <Th>
          <span className="sr-only">Actions</span>
        </Th>
      </TableHead>
      <TableBody>
        {secrets.map((secret) => (
          <Tr key={secret.name} data-testid="secret-row" data-secret={secret.name} data-readable={secret.readable}>
            <Td label="Name" className="font-mono text-[12.5px] font-medium whitespace-nowrap">{secret.name}</Td>
            <Td label="Given to">
              <SecretSkills skills={secret.skills} registered={registered} />
            </Td>
            <Td label="Fingerprint" className="font-mono text-xs whitespace-nowrap text-zinc-600" title="An HMAC of the value under the console's key: tells two values apart, never reveals one.">
              {secret.fingerprint}
            </Td>
            <Td label="Key">
              {secret.readable ? (
                <Badge tone="green" dot title="This console's key opens it.">
                  readable
                </Badge>
              ) : (
                <Badge tone="red" title="Another CONSOLE_SECRET_KEY (or ./data/secret-key) sealed it: calls that need it fail until its value is set again here." data-testid="secret-unreadable">
                  sealed with another key: set it again
                </Badge>
              )}
            </Td>
            <Td label="Updated" className="text-xs whitespace-nowrap">
              <span className="block text-zinc-800">{secret.updatedBy}</span>
              <DateTime iso={secret.updatedAt} className="text-zinc-500" />
              {secret.createdAt !== secret.updatedAt ? (
                <span className="block text-zinc-500">
                  created by {secret.createdBy}, <DateTime iso={secret.createdAt} />
                </span>
              ) : null}
            </Td>
            <Td className="text-right whitespace-nowrap">
              <span className="inline-flex gap-2">
                <Button size="sm" onClick={() => onEdit(secret)} aria-label={`Change secret ${secret.name}`}>
                  Change
                </Button>
                <Button size="sm" onClick={() => onDelete(secret)} aria-label={`Delete secret ${secret.name}`}>
                  Delete
                </Button>
              </span>
            </Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  );
}
