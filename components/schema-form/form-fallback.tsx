"use client";

import { Component, useEffect, useState, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { formatArgsJson, parseArgsJson } from "./parse-args-json";
import { RawJsonEditor, type ArgsParseError } from "./raw-json-editor";

type Args = Record<string, unknown>;

/**
 * What replaces the form when it cannot be drawn: why, and the Raw JSON editor on the current args,
 * which says there is no form. Valid JSON objects go to `onChange` as they are typed; Run sends them
 * to `onSubmit` unchecked here (the server still validates them against the skill's schema).
 * `onShown(reason)` is called once it is drawn, so the page knows the args have no form.
 */
export function FormFallback({
  formId,
  reason,
  value,
  onChange,
  onSubmit,
  onShown,
}: {
  formId: string;
  reason: string;
  value: Args;
  onChange: (value: Args) => void;
  onSubmit: (value: Args) => void;
  onShown?: (reason: string) => void;
}) {
  const [text, setText] = useState(() => formatArgsJson(value));
  const [error, setError] = useState<ArgsParseError | null>(null);
  useEffect(() => onShown?.(reason), [onShown, reason]);
  return (
    <div className="space-y-3" data-testid="form-fallback">
      <Alert tone="warning" title="This schema cannot be shown as a form">
        The form generator failed on the skill&apos;s schema ({reason}). Edit the args as JSON below; the server still checks them.
      </Alert>
      <RawJsonEditor
        formId={formId}
        text={text}
        error={error}
        hasForm={false}
        onTextChange={(next) => {
          setText(next);
          const parsed = parseArgsJson(next);
          setError(parsed.ok ? null : parsed);
          if (parsed.ok) onChange(parsed.value);
        }}
        onSubmit={() => {
          const parsed = parseArgsJson(text);
          if (!parsed.ok) return setError(parsed);
          onSubmit(parsed.value);
        }}
      />
    </div>
  );
}

/**
 * Catches a render error of the form (rjsf throws on schemas it cannot resolve) and draws
 * `fallback(reason)` instead of leaving the page blank. A new `resetKey` (e.g. the schema) retries.
 */
export class FormErrorBoundary extends Component<{ resetKey: unknown; fallback: (reason: string) => ReactNode; children: ReactNode }, { reason: string | null; key: unknown }> {
  state: { reason: string | null; key: unknown } = { reason: null, key: this.props.resetKey };

  static getDerivedStateFromError(error: unknown) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }

  static getDerivedStateFromProps(props: { resetKey: unknown }, state: { reason: string | null; key: unknown }) {
    return props.resetKey === state.key ? null : { reason: null, key: props.resetKey };
  }

  render() {
    return this.state.reason === null ? this.props.children : this.props.fallback(this.state.reason);
  }
}
