"use client";

import Link from "next/link";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import type { SecretInfo } from "@/lib/types/secret";
import type { MissingSecret } from "./missing-secrets";

/** Skills named per secret before the rest are counted. */
const LISTED = 6;

/**
 * The secrets registered skills need and lack (missingSecrets: why those skills are unavailable), each
 * with the skills (links) and one action: "Set it" fills the new-secret form with the name and those
 * skills when no secret has the name; "Give it" opens the change dialog with them added when one does.
 */
export function MissingSecretsCard({
  missing,
  existing,
  onSet,
  onGive,
}: {
  missing: MissingSecret[];
  existing: ReadonlyMap<string, SecretInfo>;
  onSet: (needed: MissingSecret) => void;
  onGive: (secret: SecretInfo, skills: string[]) => void;
}) {
  return (
    <Card aria-labelledby="missing-secrets-title">
      <CardHeader title="Secrets skills need" titleId="missing-secrets-title" description="These skills are unavailable until each is given the secret it names." />
      <ul className="divide-y divide-zinc-100">
        {missing.map((needed) => {
          const secret = existing.get(needed.name);
          return (
            <li key={needed.name} className="flex flex-wrap items-center justify-between gap-2 px-4 py-2.5" data-testid="missing-secret" data-secret={needed.name}>
              <div className="min-w-0 text-sm">
                <code className="font-mono text-[12.5px] font-medium break-all text-zinc-900">{needed.name}</code>
                <span className="text-zinc-600">
                  {" "}
                  {secret ? "exists but is not given to" : "is needed by"}{" "}
                  {needed.skills.slice(0, LISTED).map((skill, index) => (
                    <span key={skill}>
                      {index > 0 ? ", " : null}
                      <Link href={`/skills/${encodeURIComponent(skill)}`} className="font-mono text-[12.5px] break-all text-blue-700 hover:underline">
                        {skill}
                      </Link>
                    </span>
                  ))}
                  {needed.skills.length > LISTED ? ` and ${needed.skills.length - LISTED} more` : null}
                </span>
              </div>
              {secret ? (
                <Button size="sm" onClick={() => onGive(secret, needed.skills)} aria-label={`Give ${needed.name} to the skills that need it`}>
                  Give it
                </Button>
              ) : (
                <Button size="sm" onClick={() => onSet(needed)} aria-label={`Set ${needed.name}`}>
                  Set it
                </Button>
              )}
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
