"use client";

import type { ButtonHTMLAttributes, Ref } from "react";
import { cx } from "./class-names";
import { useHydrationGate } from "./hydration-gate";
import { Spinner } from "./spinner";

/** Visual weight of a button: one `primary` per view, `danger` for destructive actions. */
export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-zinc-900 text-white hover:bg-zinc-700 disabled:bg-zinc-400 border-transparent",
  secondary: "bg-white text-zinc-800 border-zinc-300 hover:bg-zinc-50 hover:border-zinc-400 disabled:text-zinc-400",
  ghost: "bg-transparent text-zinc-600 border-transparent hover:bg-zinc-100 hover:text-zinc-900 disabled:text-zinc-300",
  danger: "bg-red-600 text-white border-transparent hover:bg-red-700 disabled:bg-red-300",
};

const SIZES = {
  sm: "h-7 px-2.5 text-xs gap-1.5",
  md: "h-8 px-3 text-sm gap-2",
};

/** Props of Button: the native button's, plus variant, size and `pending` (spinner, disabled). */
export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: keyof typeof SIZES;
  pending?: boolean;
  ref?: Ref<HTMLButtonElement>;
}

/**
 * The console's button. Defaults to `type="button"` so it never submits a form by accident. Disabled
 * until its page has hydrated (useHydrationGate): a click before then would run no handler, and a
 * submit button would submit its form natively.
 */
export function Button({ variant = "secondary", size = "md", pending = false, className, disabled, autoFocus, children, type = "button", ...rest }: ButtonProps) {
  const gate = useHydrationGate(disabled || pending, autoFocus);
  return (
    <button
      key={gate.key}
      type={type}
      disabled={gate.disabled}
      autoFocus={autoFocus}
      aria-busy={pending || undefined}
      className={cx(
        "inline-flex shrink-0 items-center justify-center rounded-md border font-medium whitespace-nowrap shadow-xs transition-colors",
        "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:cursor-not-allowed disabled:shadow-none",
        VARIANTS[variant],
        SIZES[size],
        className,
      )}
      {...rest}
    >
      {pending ? <Spinner /> : null}
      {children}
    </button>
  );
}
