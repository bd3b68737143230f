import type { InputHTMLAttributes, Ref, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { cx } from "./class-names";
import { controlClass } from "./control-styles";

/** A text input styled like every console control; `invalid` marks it (and sets aria-invalid). */
export function Input({ className, invalid, ref, ...rest }: InputHTMLAttributes<HTMLInputElement> & { invalid?: boolean; ref?: Ref<HTMLInputElement> }) {
  return <input ref={ref} aria-invalid={invalid || undefined} className={cx(controlClass(invalid), "h-8", className)} {...rest} />;
}

/** A native select styled like the other controls. */
export function Select({ className, invalid, children, ...rest }: SelectHTMLAttributes<HTMLSelectElement> & { invalid?: boolean }) {
  return (
    <select aria-invalid={invalid || undefined} className={cx(controlClass(invalid), "h-8 pr-8", className)} {...rest}>
      {children}
    </select>
  );
}

/** A multi-line text control; monospace when `mono` (for JSON). */
export function Textarea({ className, invalid, mono, ref, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement> & { invalid?: boolean; mono?: boolean; ref?: Ref<HTMLTextAreaElement> }) {
  return (
    <textarea
      ref={ref}
      aria-invalid={invalid || undefined}
      className={cx(controlClass(invalid), mono && "font-mono text-[13px] leading-5", className)}
      {...rest}
    />
  );
}
