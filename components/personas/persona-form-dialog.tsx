"use client";

import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input, Select, Textarea } from "@/components/ui/input";
import { personaErrorField, useSavePersona, type PersonaDraft } from "@/lib/client/personas";
import { PERMISSION_MODES, type Persona, type PermissionMode } from "@/lib/types/persona";
import { ModalFrame } from "@/components/ui/modal-frame";
import { PatternListEditor } from "./pattern-list-editor";
import { MODE_SUMMARY } from "./permission-mode";

const NEW_PERSONA: PersonaDraft = { name: "", description: "", permission_mode: "read-only", skills: { allow: [], deny: [] } };

/**
 * The create / edit dialog of a persona (issue 4 point 2): name (fixed when editing: personas are not
 * renamed), description, permission mode (with what it allows), `skills.allow`, `skills.deny`, and
 * `categories` (all, or a list). `persona` null creates; otherwise it is replaced with PUT. The
 * server validates; its refusal is shown with the offending field marked. `onClose` after saving too.
 */
export function PersonaFormDialog({ open, persona, onClose }: { open: boolean; persona: Persona | null; onClose: () => void }) {
  const save = useSavePersona();
  return (
    <ModalFrame
      open={open}
      busy={save.isPending}
      width="2xl"
      onClose={() => {
        save.reset();
        onClose();
      }}
    >
      {(titleId) => <PersonaForm titleId={titleId} persona={persona} save={save} onClose={onClose} />}
    </ModalFrame>
  );
}

function PersonaForm({ titleId, persona, save, onClose }: { titleId: string; persona: Persona | null; save: ReturnType<typeof useSavePersona>; onClose: () => void }) {
  const ids = { name: useId(), description: useId(), mode: useId(), modeHint: useId() };
  const initial = persona ?? NEW_PERSONA;
  const [name, setName] = useState(initial.name);
  const [description, setDescription] = useState(initial.description);
  const [mode, setMode] = useState<PermissionMode>(initial.permission_mode);
  const [allow, setAllow] = useState(initial.skills.allow);
  const [deny, setDeny] = useState(initial.skills.deny);
  const [allCategories, setAllCategories] = useState(initial.categories === undefined);
  const [categories, setCategories] = useState(initial.categories ?? []);
  const badField = personaErrorField(save.error);
  const fieldIs = (prefix: string) => badField !== null && (badField === prefix || badField.startsWith(`${prefix}[`) || badField.startsWith(`${prefix}.`));

  function submit() {
    const draft: PersonaDraft = { name: name.trim(), description, permission_mode: mode, skills: { allow, deny } };
    if (!allCategories) draft.categories = categories;
    save.mutate({ draft, replacing: persona?.name }, { onSuccess: onClose });
  }

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      aria-busy={save.isPending}
      data-testid="persona-form"
    >
      <div className="max-h-[75vh] space-y-4 overflow-y-auto p-5">
        <h2 id={titleId} className="text-base font-semibold text-zinc-900">
          {persona ? `Edit persona ${persona.name}` : "New persona"}
        </h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <div>
            <label htmlFor={ids.name} className="block text-xs font-medium text-zinc-700">
              Name
            </label>
            <Input
              id={ids.name}
              className="mt-1 font-mono"
              value={name}
              required
              maxLength={64}
              pattern="[a-z0-9][a-z0-9_\-]{0,63}"
              title="Lower-case letters, digits, _ and -, starting with a letter or digit"
              disabled={persona !== null}
              invalid={fieldIs("name")}
              autoFocus={persona === null}
              onChange={(event) => setName(event.target.value)}
            />
            <p className="mt-0.5 text-xs text-zinc-500">{persona ? "Personas are not renamed: tokens and calls refer to them by name." : "a-z, 0-9, _ and -; up to 64 characters."}</p>
          </div>
          <div>
            <label htmlFor={ids.mode} className="block text-xs font-medium text-zinc-700">
              Permission mode
            </label>
            <Select id={ids.mode} className="mt-1" value={mode} aria-describedby={ids.modeHint} invalid={fieldIs("permission_mode")} onChange={(event) => setMode(event.target.value as PermissionMode)}>
              {PERMISSION_MODES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </Select>
            <p id={ids.modeHint} className="mt-0.5 text-xs text-zinc-500">
              {MODE_SUMMARY[mode]}
            </p>
          </div>
        </div>
        <div>
          <label htmlFor={ids.description} className="block text-xs font-medium text-zinc-700">
            Description
          </label>
          <Textarea id={ids.description} className="mt-1" rows={2} maxLength={2000} value={description} invalid={fieldIs("description")} onChange={(event) => setDescription(event.target.value)} />
        </div>
        <PatternListEditor
          label="Allowed skills (skills.allow)"
          hint={
            <>
              Skill names, <code>*</code> globs (<code>disk_*</code>) and <code>category:ops</code>. An empty list allows nothing; <code>*</code> allows every skill.
            </>
          }
          values={allow}
          onChange={setAllow}
          placeholder="e.g. category:ops disk_*"
          invalid={fieldIs("skills.allow")}
          testId="allow-editor"
        />
        <PatternListEditor
          label="Denied skills (skills.deny)"
          hint="Same patterns; deny wins over allow."
          values={deny}
          onChange={setDeny}
          placeholder="e.g. kill_process"
          invalid={fieldIs("skills.deny")}
          testId="deny-editor"
        />
        <fieldset>
          <legend className="text-xs font-medium text-zinc-700">Native skill categories (categories)</legend>
          <label className="mt-1 flex items-center gap-2 text-sm text-zinc-700">
            <input type="checkbox" checked={allCategories} onChange={(event) => setAllCategories(event.target.checked)} />
            Every category (leave <code>categories</code> out)
          </label>
          {allCategories ? null : (
            <div className="mt-2">
              <PatternListEditor
                label="Categories this persona loads and finds"
                values={categories}
                onChange={setCategories}
                placeholder="e.g. ops system"
                invalid={fieldIs("categories")}
                testId="categories-editor"
              />
            </div>
          )}
        </fieldset>
        {save.error ? (
          <Alert tone="danger" title={persona ? "The persona was not saved" : "The persona was not created"}>
            {save.error.message}
          </Alert>
        ) : null}
      </div>
      <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3">
        <Button
          variant="secondary"
          disabled={save.isPending}
          onClick={() => {
            save.reset();
            onClose();
          }}
        >
          Cancel
        </Button>
        <Button type="submit" variant="primary" pending={save.isPending} disabled={name.trim() === ""}>
          {persona ? "Save persona" : "Create persona"}
        </Button>
      </div>
    </form>
  );
}
