"use client";

import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { useIdentity } from "@/lib/client/identity";
import type { Skill } from "@/lib/types/skill";

/**
 * The skill page's "Secrets" value (DESIGN.md "Skill secrets"): each secret the skill needs
 * (`secretsNeeded`) marked given or missing — a missing one keeps it unavailable — then any other secret
 * it is given; "none" when neither. Admins also get a link to the Secrets page, where secrets are set.
 */
export function SkillSecrets({ skill }: { skill: Skill }) {
  const identity = useIdentity();
  const isAdmin = identity.data?.role === "admin";
  const extra = skill.secretsGiven.filter((name) => !skill.secretsNeeded.includes(name));
  const missing = skill.secretsNeeded.filter((name) => !skill.secretsGiven.includes(name));

  return (
    <div data-testid="skill-secrets">
      {skill.secretsNeeded.length === 0 && extra.length === 0 ? (
        <span className="text-zinc-500">none needed or given</span>
      ) : (
        <ul className="flex flex-wrap gap-x-3 gap-y-1">
          {skill.secretsNeeded.map((name) => {
            const given = skill.secretsGiven.includes(name);
            return (
              <li key={name} className="inline-flex items-center gap-1.5" data-secret={name} data-state={given ? "given" : "missing"}>
                <code className="font-mono text-[12px] break-all text-zinc-800">{name}</code>
                {given ? (
                  <Badge tone="green" dot>
                    given
                  </Badge>
                ) : (
                  <Badge tone="red" title="The skill is unavailable until a secret of this name is given to it.">
                    missing
                  </Badge>
                )}
              </li>
            );
          })}
          {extra.map((name) => (
            <li key={name} className="inline-flex items-center gap-1.5" data-secret={name} data-state="given">
              <code className="font-mono text-[12px] break-all text-zinc-800">{name}</code>
              <Badge tone="neutral" title="Given to this skill, though it does not declare that it needs it.">
                given
              </Badge>
            </li>
          ))}
        </ul>
      )}
      {isAdmin ? (
        <Link href="/secrets" className="mt-1 block text-xs text-blue-700 hover:underline">
          {missing.length > 0 ? `Set ${missing.length === 1 ? "it" : "them"} on the Secrets page` : "Secrets page"}
        </Link>
      ) : null}
    </div>
  );
}
