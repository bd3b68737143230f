"use client";

import { getDefaultFormState, type RJSFSchema } from "@rjsf/utils";
import { useRouter } from "next/navigation";
import { useCallback, useMemo, useRef, useState, useTransition } from "react";
import { SchemaForm, type Args } from "@/components/schema-form/schema-form";
import { ajvErrorsToErrorSchema, listAjvErrors } from "@/components/schema-form/ajv-errors";
import { FieldMessageList } from "@/components/schema-form/field-message-list";
import { hasNoFields, toFormSchema, unrenderableReason } from "@/components/schema-form/form-schema";
import { formatArgsJson, parseArgsJson } from "@/components/schema-form/parse-args-json";
import { omitReadOnly, restoreReadOnly } from "@/components/schema-form/read-only-args";
import { RawJsonEditor, type ArgsParseError } from "@/components/schema-form/raw-json-editor";
import { argsValidator } from "@/components/schema-form/validator";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import { CopyButton } from "@/components/ui/copy-button";
import { CopyCurlButton } from "@/components/calls/copy-curl-button";
import { Kbd } from "@/components/ui/kbd";
import { isApiError, type AjvErrorDetail } from "@/lib/client/api-error";
import type { FieldMessage } from "@/lib/client/validation-messages";
import { useConfirmCall, useDropCall } from "@/lib/client/approvals";
import { previewPolicy } from "@/lib/client/policy-preview";
import { useStartCall } from "@/lib/client/use-calls";
import { usePersonas } from "@/lib/client/use-personas";
import type { Call } from "@/lib/types/call";
import { DEFAULT_PERSONA_NAME } from "@/lib/types/persona";
import type { Skill } from "@/lib/types/skill";
import type { ArgPreset } from "@/lib/types/preset";
import { findPersona, PersonaPicker } from "./persona-picker";
import { PolicyNotice } from "./policy-notice";
import { PresetBar } from "./preset-bar";
import { RunConfirmDialog } from "./run-confirm-dialog";

const FORM_ID = "skill-args-form";

type Mode = "form" | "raw";

/**
 * The args the form starts from: the schema's `default`s (and single `const`s), never a oneOf's first
 * `const` — rjsf takes that as a default by itself, which would send a choice nobody made.
 */
function defaultArgs(schema: RJSFSchema): Args {
  const defaults = getDefaultFormState<Args>(argsValidator, schema, {}, schema, false, { constAsDefaults: "skipOneOf" });
  return defaults && typeof defaults === "object" && !Array.isArray(defaults) ? defaults : {};
}

/** Args loaded from elsewhere (a past call, a preset) and the note that says where they came from. */
export interface LoadedArgs {
  args: Args;
  note: string;
}

/** The schema's complaints about `value` as field messages; empty when it is valid. */
function checkArgs(schema: RJSFSchema, value: Args): FieldMessage[] {
  const { errors, validationError } = argsValidator.rawValidation<AjvErrorDetail>(schema, value);
  if (validationError) return [{ path: "", message: `the skill's schema could not be checked here: ${validationError.message}` }];
  return errors && errors.length > 0 ? listAjvErrors(errors) : [];
}

/** The "Form | Raw JSON" switch: two toggle buttons, the current one pressed. */
function ModeSwitch({ mode, onChange }: { mode: Mode; onChange: (mode: Mode) => void }) {
  return (
    <div role="group" aria-label="Args editor" className="inline-flex rounded-md border border-zinc-300 bg-zinc-100 p-0.5">
      {(["form", "raw"] as const).map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={mode === option}
          onClick={() => onChange(option)}
          className={cx(
            "h-6 rounded px-2.5 text-xs font-medium focus-visible:outline-2 focus-visible:outline-blue-600",
            mode === option ? "bg-white text-zinc-900 shadow-xs" : "text-zinc-600 hover:text-zinc-900",
          )}
        >
          {option === "form" ? "Form" : "Raw JSON"}
        </button>
      ))}
    </div>
  );
}

/**
 * The test-run panel of a skill page: the persona the call runs under (default `default`) with what the
 * policy will do for it and the skill's class, the args form generated from the skill's schema (with
 * its defaults), a Raw JSON view kept in sync both ways, and the Run button, which starts the call with
 * `wait: false` and the persona (issue 4 points 2 and 4). The server's answer rules: `running`/`queued`
 * and `awaiting_approval` open the call page; `awaiting_confirmation` opens the explicit confirm step
 * (Confirm and run → POST …/confirm, then the call page; Don't run → cancel); refusals are shown —
 * `invalid_args` on the fields and as a list, `forbidden` with the policy's reason, anything else as is.
 * Run is disabled up front when the policy table denies the class under the chosen persona.
 * `loaded` (a past call's args, from `?from=`) replaces the defaults, even when they no longer match
 * the schema: the mismatch is listed. Presets load the same way; "Copy as curl" copies the current args.
 * The form never sends read-only fields; the Raw JSON editor sends what it holds (issue 14 point 4) and
 * leaves them out of what it shows, so back in the form they show again (restoreReadOnly). When no form
 * can be built from the schema, the Raw JSON editor says so instead of claiming to follow a form.
 */
export function SkillRunPanel({ skill, loaded }: { skill: Skill; loaded?: LoadedArgs }) {
  const router = useRouter();
  const schema = useMemo(() => toFormSchema(skill.schema), [skill.schema]);
  const initialArgs = useMemo(() => defaultArgs(schema), [schema]);
  const [args, setArgs] = useState<Args>(loaded?.args ?? initialArgs);
  // The form's args as the Raw JSON view last opened on them (see switchMode), read-only values included.
  const formArgs = useRef<Args>(args);
  const [formFailed, setFormFailed] = useState(false);
  const onFormFallback = useCallback(() => setFormFailed(true), []);
  const hasForm = unrenderableReason(schema) === null && !formFailed;
  const [mode, setMode] = useState<Mode>("form");
  const [rawText, setRawText] = useState(() => (loaded ? formatArgsJson(loaded.args) : ""));
  const [rawError, setRawError] = useState<ArgsParseError | null>(null);
  const [modeMessage, setModeMessage] = useState<string | null>(null);
  const [localErrors, setLocalErrors] = useState<FieldMessage[]>(() => (loaded ? checkArgs(schema, loaded.args) : []));
  const [sourceNote, setSourceNote] = useState<string | null>(loaded?.note ?? null);
  const [formKey, setFormKey] = useState(0);
  const [presetId, setPresetId] = useState("");
  const [navigating, startNavigation] = useTransition();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const startCall = useStartCall();
  const confirmCall = useConfirmCall();
  const dropCall = useDropCall();
  const personas = usePersonas();
  const [personaName, setPersonaName] = useState(DEFAULT_PERSONA_NAME);
  const [toConfirm, setToConfirm] = useState<Call | null>(null);
  const [dropped, setDropped] = useState<Call | null>(null);
  const persona = findPersona(personas.data, personaName);
  const preview = persona ? previewPolicy(persona.permission_mode, skill.class) : null;

  const blockedReason = !skill.available
    ? `This skill is unavailable: ${skill.unavailableReason ?? "see the loader report"}.`
    : preview?.outcome === "deny" && persona
      ? `Run is disabled: a ${persona.permission_mode} persona may not run ${skill.class} skills.`
      : null;

  function openCall(call: Call) {
    startNavigation(() => router.push(`/calls/${encodeURIComponent(call.id)}`));
  }

  const serverError = startCall.error;
  const serverAjvErrors = useMemo(() => (isApiError(serverError, "invalid_args") ? serverError.ajvErrors : []), [serverError]);
  const extraErrors = useMemo(() => (serverAjvErrors.length > 0 ? ajvErrorsToErrorSchema(serverAjvErrors) : undefined), [serverAjvErrors]);

  function run(value: Args) {
    if (blockedReason) return;
    setLocalErrors([]);
    setDropped(null);
    startCall.mutate(
      { skill: skill.name, args: value, persona: personaName },
      {
        onSuccess: (call) => {
          if (call.status === "awaiting_confirmation") {
            confirmCall.reset();
            dropCall.reset();
            setToConfirm(call);
          } else {
            openCall(call);
          }
        },
      },
    );
  }

  function confirm() {
    if (!toConfirm) return;
    confirmCall.mutate(toConfirm.id, { onSuccess: (call) => openCall(call) });
  }

  function decline() {
    if (!toConfirm) return;
    dropCall.mutate(toConfirm.id, {
      onSuccess: (call) => {
        setToConfirm(null);
        setDropped(call);
      },
    });
  }

  function runRaw() {
    const parsed = parseArgsJson(rawText);
    if (!parsed.ok) {
      setRawError(parsed);
      textarea.current?.focus();
      textarea.current?.setSelectionRange(parsed.position, parsed.position);
      return;
    }
    const { errors, validationError } = argsValidator.rawValidation<AjvErrorDetail>(schema, parsed.value);
    if (validationError) {
      setLocalErrors([{ path: "", message: `the skill's schema could not be checked here: ${validationError.message}` }]);
      return;
    }
    if (errors && errors.length > 0) {
      setLocalErrors(listAjvErrors(errors));
      return;
    }
    run(parsed.value);
  }

  function switchMode(next: Mode) {
    if (next === mode) return;
    if (next === "raw") {
      // The Raw JSON shows what Run sends: read-only fields only go when typed here.
      formArgs.current = args;
      setRawText(formatArgsJson(omitReadOnly(argsValidator, schema, args)));
      setRawError(null);
      setModeMessage(null);
      setMode("raw");
      return;
    }
    const parsed = parseArgsJson(rawText);
    if (!parsed.ok) {
      setRawError(parsed);
      setModeMessage("Fix the JSON before going back to the form; your text is kept as typed.");
      textarea.current?.focus();
      return;
    }
    // The form shows again the read-only values the Raw JSON view left out.
    setArgs(restoreReadOnly(argsValidator, schema, formArgs.current, parsed.value));
    setModeMessage(null);
    setLocalErrors([]);
    setMode("form");
  }

  function onRawChange(text: string) {
    setRawText(text);
    // The list described the text as it was at the last Run; it is stale once the text changes.
    setLocalErrors([]);
    const parsed = parseArgsJson(text);
    if (parsed.ok) {
      setArgs(parsed.value);
      setRawError(null);
      setModeMessage(null);
    } else {
      setRawError(parsed);
    }
  }

  /** Replaces the args in both editors with `value`, listing what the schema finds wrong with it. */
  function load(value: Args, note: string | null) {
    setArgs(value);
    formArgs.current = value;
    setRawText(formatArgsJson(value));
    setRawError(null);
    setLocalErrors(note === null ? [] : checkArgs(schema, value));
    setModeMessage(null);
    setSourceNote(note);
    setFormKey((key) => key + 1);
    startCall.reset();
  }

  /**
   * Back to the schema's defaults: the preset picker no longer names the args either. Like the view
   * switch, the Raw JSON shows the defaults as Run sends them, without read-only ones.
   */
  function reset() {
    load(initialArgs, null);
    setRawText(formatArgsJson(omitReadOnly(argsValidator, schema, initialArgs)));
    setPresetId("");
  }

  /** The args as the current editor would send them (the form's without read-only fields); null while the raw JSON does not parse. */
  function currentArgs(): Args | null {
    if (mode === "form") return omitReadOnly(argsValidator, schema, args);
    const parsed = parseArgsJson(rawText);
    return parsed.ok ? parsed.value : null;
  }

  const noFields = hasNoFields(schema);

  return (
    <Card aria-labelledby="run-panel-title">
      <CardHeader
        title="Test run"
        titleId="run-panel-title"
        description="Arguments are checked against the skill's JSON Schema here and again on the server."
        actions={
          <>
            <Button size="sm" variant="ghost" onClick={reset}>
              Reset
            </Button>
            <ModeSwitch mode={mode} onChange={switchMode} />
          </>
        }
      />
      <div
        className="space-y-4 p-4"
        onKeyDown={(event) => {
          if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            (document.getElementById(FORM_ID) as HTMLFormElement | null)?.requestSubmit();
          }
        }}
      >
        <PresetBar
          skill={skill.name}
          getArgs={currentArgs}
          unreadableReason="Fix the raw JSON first: it does not parse."
          selectedId={presetId}
          onSelect={setPresetId}
          onLoad={(preset: ArgPreset) => load(preset.args, `Args from preset “${preset.name}”`)}
        />
        {sourceNote ? (
          <p className="rounded-md bg-blue-50 px-3 py-1.5 text-xs text-blue-900" data-testid="args-source">
            {sourceNote}
          </p>
        ) : null}
        <PersonaPicker
          value={personaName}
          onChange={(name) => {
            setPersonaName(name);
            startCall.reset();
          }}
        />
        {skill.class !== "safe" ? <PolicyNotice skillClass={skill.class} persona={persona} preview={preview} /> : null}
        {!skill.available ? (
          <Alert tone="danger" title="Unavailable">
            {skill.unavailableReason ?? "The loader marked this skill unavailable."}
          </Alert>
        ) : null}

        {mode === "form" ? (
          noFields ? (
            <form
              id={FORM_ID}
              noValidate
              onSubmit={(event) => {
                event.preventDefault();
                run(args);
              }}
            >
              <p className="rounded-md border border-dashed border-zinc-300 px-3 py-4 text-center text-sm text-zinc-500">
                This skill declares no arguments. Run sends <code className="font-mono">{formatArgsJson(args).replace(/\s+/g, " ")}</code>.
              </p>
            </form>
          ) : (
            <SchemaForm key={formKey} formId={FORM_ID} schema={schema} value={args} onChange={setArgs} onValidSubmit={run} extraErrors={extraErrors} onFallback={onFormFallback} />
          )
        ) : (
          <RawJsonEditor formId={FORM_ID} text={rawText} error={rawError} hasForm={hasForm} onTextChange={onRawChange} onSubmit={runRaw} textareaRef={textarea} />
        )}

        {modeMessage ? (
          <Alert tone="warning" title="Still in Raw JSON" live>
            {modeMessage}
          </Alert>
        ) : null}

        {localErrors.length > 0 ? (
          <Alert tone="danger" title="The args do not match the schema">
            <FieldMessageList messages={localErrors} data-testid="args-errors" />
          </Alert>
        ) : null}

        {serverError ? (
          isApiError(serverError, "invalid_args") ? (
            <Alert tone="danger" title="The server refused the args (invalid_args)">
              <p>{serverError.message}</p>
              {serverAjvErrors.length > 0 ? (
                <FieldMessageList messages={listAjvErrors(serverAjvErrors)} className="mt-1 list-inside list-disc" data-testid="server-args-errors" />
              ) : null}
            </Alert>
          ) : isApiError(serverError, "forbidden") || isApiError(serverError, "approval_required") ? (
            <Alert tone="danger" title="Not allowed" data-testid="policy-refusal">
              {serverError.message}
            </Alert>
          ) : (
            <Alert tone="danger" title={isApiError(serverError) ? `Run failed (${serverError.code})` : "Run failed"}>
              {serverError.message}
            </Alert>
          )
        ) : null}

        {dropped ? (
          <Alert tone="info" title="Not run" live data-testid="call-dropped">
            Call <code className="font-mono">{dropped.id}</code> was dropped ({dropped.status.replace(/_/g, " ")}); nothing ran.
          </Alert>
        ) : null}
      </div>
      <RunConfirmDialog
        call={toConfirm}
        skillClass={skill.class}
        pending={confirmCall.isPending || navigating ? "confirm" : dropCall.isPending ? "decline" : null}
        error={confirmCall.error?.message ?? dropCall.error?.message ?? null}
        onConfirm={confirm}
        onDecline={decline}
      />
      <div className="flex flex-col gap-2 border-t border-zinc-200 bg-zinc-50/70 px-4 py-2.5 sm:flex-row sm:items-center sm:justify-between sm:gap-3">
        <p className="min-w-0 text-xs text-zinc-500">
          {blockedReason ?? (
            <>
              {preview?.outcome === "confirm"
                ? "Asks you to confirm the exact args, then starts the call."
                : preview?.outcome === "dual_sign"
                  ? "Files a request that two other approvers sign; the call page follows it."
                  : "Starts the call and follows its stderr live."}{" "}
              <Kbd>Ctrl</Kbd>+<Kbd>Enter</Kbd> runs from any field.
            </>
          )}
        </p>
        <div className="flex flex-wrap items-center gap-2 sm:shrink-0 sm:justify-end">
          <CopyCurlButton skill={skill.name} getArgs={() => currentArgs() ?? args} />
          <CopyButton label="Copy args as JSON" getText={() => (mode === "raw" ? rawText : formatArgsJson(omitReadOnly(argsValidator, schema, args)))} />
          <Button
            type="submit"
            form={FORM_ID}
            variant="primary"
            disabled={blockedReason !== null}
            pending={startCall.isPending || navigating}
            title={blockedReason ?? undefined}
          >
            <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3" fill="currentColor">
              <path d="M4 2.5v11l9-5.5z" />
            </svg>
            Run
          </Button>
        </div>
      </div>
    </Card>
  );
}
