"use client";

import { useId, useRef, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { OneTimeValue } from "@/lib/client/one-time-value";
import { useCreateSecret } from "@/lib/client/use-secrets";
import { useSkills } from "@/lib/client/use-skills";
import type { SecretInfo } from "@/lib/types/secret";
import { SECRET_NAME_PATTERN } from "@/lib/validation/secret-requests";
import { secretChangeImpact } from "./secret-impact";
import { SecretImpactNote } from "./secret-impact-note";
import { SecretValueField, takeFieldValue, type SecretValueElement } from "./secret-value-field";
import { SkillPicker } from "./skill-picker";

/** A name and skills to start the form with ("Set it" on a secret skills need). */
export interface SecretPreset {
  name: string;
  skills: string[];
}

/**
 * The form that stores a new secret (`POST /api/v1/secrets` `{name, value, skills}`, admin): its name
 * (an environment variable's; `neededNames` offered as suggestions), its value (SecretValueField: read
 * and emptied when sent, so an error means typing it again) and the skills given it (SkillPicker), with
 * what saving does to them. The server's refusal is shown as it says it (it never quotes the value);
 * once saved, the name and fingerprint are confirmed, never the value. `preset` fills name and skills.
 */
export function CreateSecretForm({ preset, neededNames }: { preset: SecretPreset | null; neededNames: string[] }) {
  const create = useCreateSecret();
  const skills = useSkills();
  const ids = { name: useId(), nameHint: useId(), names: useId() };
  const valueRef = useRef<SecretValueElement | null>(null);
  const [name, setName] = useState(preset?.name ?? "");
  const [chosen, setChosen] = useState<string[]>(preset?.skills ?? []);
  const [saved, setSaved] = useState<SecretInfo | null>(null);
  const impact = secretChangeImpact(name.trim(), [], chosen, true, skills.data ?? []);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(null);
    const value = new OneTimeValue(takeFieldValue(valueRef));
    create.mutate(
      { name: name.trim(), value, skills: chosen },
      {
        onSuccess: (secret) => {
          setSaved(secret);
          setName("");
          setChosen([]);
        },
      },
    );
  }

  return (
    <Card aria-labelledby="create-secret-title">
      <CardHeader title="New secret" titleId="create-secret-title" description="A credential given to chosen skills as an environment variable, sealed at rest, masked (•••) wherever a skill prints it." />
      <CardBody>
        <form onSubmit={submit} className="space-y-4" aria-busy={create.isPending}>
          <div className="grid gap-4 md:grid-cols-2">
            <div>
              <label htmlFor={ids.name} className="mb-1 block text-sm font-medium text-zinc-800">
                Name
              </label>
              <Input
                id={ids.name}
                required
                maxLength={128}
                pattern={SECRET_NAME_PATTERN}
                title="An environment variable's name: letters, digits and _, not starting with a digit"
                autoComplete="off"
                spellCheck={false}
                list={neededNames.length > 0 ? ids.names : undefined}
                aria-describedby={ids.nameHint}
                placeholder="e.g. OPENAI_API_KEY"
                className="font-mono"
                value={name}
                onChange={(event) => setName(event.target.value)}
              />
              {neededNames.length > 0 ? (
                <datalist id={ids.names}>
                  {neededNames.map((needed) => (
                    <option key={needed} value={needed} />
                  ))}
                </datalist>
              ) : null}
              <p id={ids.nameHint} className="mt-1 text-xs text-zinc-500">
                The environment variable its skills get. PATH, HOME, LD_* and other variables that change how programs run are refused.
              </p>
            </div>
            <SecretValueField fieldRef={valueRef} label="Value" required autoFocus={preset !== null} />
          </div>
          <SkillPicker secretName={name.trim()} selected={chosen} onChange={setChosen} />
          <SecretImpactNote impact={impact} name={name.trim()} />
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" variant="primary" pending={create.isPending} disabled={name.trim() === ""}>
              Save secret
            </Button>
          </div>
        </form>
        {create.isError ? (
          <Alert tone="danger" title="The secret was not saved" className="mt-3">
            {create.error.message} The value was cleared from the form: enter it again.
          </Alert>
        ) : saved ? (
          <Alert tone="info" live title={`Secret ${saved.name} saved.`} className="mt-3" data-testid="secret-saved">
            Given to {saved.skills.length === 0 ? "no skill yet" : `${saved.skills.length} skill${saved.skills.length === 1 ? "" : "s"}`}; fingerprint <code className="font-mono">{saved.fingerprint}</code>. Its value is not shown again.
          </Alert>
        ) : null}
      </CardBody>
    </Card>
  );
}
