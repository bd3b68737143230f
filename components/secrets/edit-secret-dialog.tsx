"use client";

import { useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ModalFrame } from "@/components/ui/modal-frame";
import { OneTimeValue } from "@/lib/client/one-time-value";
import { useUpdateSecret } from "@/lib/client/use-secrets";
import { useSkills } from "@/lib/client/use-skills";
import type { SecretInfo } from "@/lib/types/secret";
import { secretChangeImpact } from "./secret-impact";
import { SecretImpactNote } from "./secret-impact-note";
import { SecretValueField, takeFieldValue, type SecretValueElement } from "./secret-value-field";
import { SkillPicker } from "./skill-picker";

/** A secret to change, and skills to add to it up front ("Give it" on a secret skills lack). */
export interface SecretEdit {
  secret: SecretInfo;
  addSkills: string[];
}

/**
 * The dialog that changes a secret (`PUT /api/v1/secrets/{name}`, admin; `edit` null: closed): a new
 * value (optional: empty keeps the current one) and/or its skills, sending only what changed, with what
 * the change does before it is saved — skills losing it, those that then become unavailable, and the
 * pending approvals voided (every skill's when the value changes). The server's refusal stays in the
 * dialog; `onClose` after saving too.
 */
export function EditSecretDialog({ edit, onClose }: { edit: SecretEdit | null; onClose: () => void }) {
  const update = useUpdateSecret();
  const close = () => {
    update.reset();
    onClose();
  };
  return (
    <ModalFrame open={edit !== null} busy={update.isPending} width="xl" onClose={close} testId="edit-secret-dialog">
      {(titleId) => (edit ? <EditSecretForm titleId={titleId} edit={edit} update={update} onClose={close} /> : null)}
    </ModalFrame>
  );
}

function EditSecretForm({ titleId, edit, update, onClose }: { titleId: string; edit: SecretEdit; update: ReturnType<typeof useUpdateSecret>; onClose: () => void }) {
  const { secret } = edit;
  const skills = useSkills();
  const valueRef = useRef<SecretValueElement | null>(null);
  const [hasValue, setHasValue] = useState(false);
  const [chosen, setChosen] = useState<string[]>(() => [...new Set([...secret.skills, ...edit.addSkills])]);
  const skillsChanged = chosen.length !== secret.skills.length || chosen.some((skill) => !secret.skills.includes(skill));
  const impact = secretChangeImpact(secret.name, secret.skills, chosen, hasValue, skills.data ?? []);

  function submit() {
    const typed = takeFieldValue(valueRef);
    setHasValue(false);
    update.mutate(
      { name: secret.name, ...(typed === "" ? {} : { value: new OneTimeValue(typed) }), ...(skillsChanged ? { skills: chosen } : {}) },
      { onSuccess: onClose },
    );
  }

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      aria-busy={update.isPending}
    >
      <div className="max-h-[75vh] space-y-4 overflow-y-auto p-5">
        <div>
          <h2 id={titleId} className="text-base font-semibold text-zinc-900">
            Change secret <span className="font-mono break-all">{secret.name}</span>
          </h2>
          <p className="mt-1 text-xs text-zinc-500">
            Fingerprint now <code className="font-mono">{secret.fingerprint}</code>. Its value is never shown: type a new one to replace it.
          </p>
        </div>
        {secret.readable ? null : (
          <Alert tone="warning" title="Sealed with another key: set it again">
            This console&apos;s key cannot open it, so calls that need it fail. Type its value again to seal it with this key.
          </Alert>
        )}
        <SecretValueField fieldRef={valueRef} label="New value (optional)" onPresenceChange={setHasValue} hint="Leave empty to keep the current value. At least 8 characters, up to 64 KiB, no space or line break at either end." />
        <SkillPicker secretName={secret.name} selected={chosen} onChange={setChosen} />
        <SecretImpactNote impact={impact} name={secret.name} />
        {update.isError ? (
          <Alert tone="danger" title="The secret was not changed">
            {update.error.message} Any value typed was cleared: enter it again.
          </Alert>
        ) : null}
      </div>
      <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3">
        <Button variant="secondary" disabled={update.isPending} onClick={onClose}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" pending={update.isPending} disabled={!hasValue && !skillsChanged}>
          Save changes
        </Button>
      </div>
    </form>
  );
}
