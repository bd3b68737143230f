"use client";

import type { InputHTMLAttributes, Ref, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { cx } from "./class-names";
import { controlClass } from "./control-styles";
import { useHydrationGate } from "./hydration-gate";

/**
 * A text input styled like every console control; `invalid` marks it (and sets aria-invalid). Disabled
 * until its page has hydrated (useHydrationGate), so nothing typed before then is lost.
 */
export function Input({ className, invalid, disabled, autoFocus, ref, ...rest }: InputHTMLAttributes<HTMLInputElement> & { invalid?: boolean; ref?: Ref<HTMLInputElement> }) {
  const gate = useHydrationGate(disabled, autoFocus);
  return (
    <input
      key={gate.key}
      ref={ref}
      disabled={gate.disabled}
      autoFocus={autoFocus}
      aria-invalid={invalid || undefined}
      className={cx(controlClass(invalid), "h-8", className)}
      {...rest}
    />
  );
}

/** A native select styled like the other controls; disabled until its page has hydrated. */
export function Select({ className, invalid, disabled, autoFocus, children, ...rest }: SelectHTMLAttributes<HTMLSelectElement> & { invalid?: boolean }) {
  const gate = useHydrationGate(disabled, autoFocus);
  return (
    <select key={gate.key} disabled={gate.disabled} autoFocus={autoFocus} aria-invalid={invalid || undefined} className={cx(controlClass(invalid), "h-8 pr-8", className)} {...rest}>
      {children}
    </select>
  );
}

/** A multi-line text control; monospace when `mono` (for JSON). Disabled until its page has hydrated. */
export function Textarea({
  className,
  invalid,
  mono,
  disabled,
  autoFocus,
  ref,
  ...rest
}: TextareaHTMLAttributes<HTMLTextAreaElement> & { invalid?: boolean; mono?: boolean; ref?: Ref<HTMLTextAreaElement> }) {
  const gate = useHydrationGate(disabled, autoFocus);
  return (
    <textarea
      key={gate.key}
      ref={ref}
      disabled={gate.disabled}
      autoFocus={autoFocus}
      aria-invalid={invalid || undefined}
      className={cx(controlClass(invalid), mono && "font-mono text-[13px] leading-5", className)}
      {...rest}
    />
  );
}
