import type { ReactNode } from "react";
import { cx } from "./class-names";

/** Meaning of an alert: neutral information, a warning, or a failure. */
export type AlertTone = "info" | "warning" | "danger";

const TONES: Record<AlertTone, string> = {
  info: "border-blue-200 bg-blue-50 text-blue-900",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
  danger: "border-red-200 bg-red-50 text-red-900",
};

const ICONS: Record<AlertTone, string> = { info: "i", warning: "!", danger: "×" };

/**
 * A boxed message with a title, body and optional actions. Danger alerts are announced (role=alert);
 * the others are plain regions (role=status for `live`).
 */
export function Alert({
  tone = "info",
  title,
  children,
  actions,
  live = false,
  className,
  ...rest
}: {
  tone?: AlertTone;
  title: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  live?: boolean;
  className?: string;
} & Omit<React.HTMLAttributes<HTMLDivElement>, "title">) {
  return (
    <div
      role={tone === "danger" ? "alert" : live ? "status" : undefined}
      className={cx("flex gap-3 rounded-md border px-3 py-2.5 text-sm", TONES[tone], className)}
      {...rest}
    >
      <span
        aria-hidden="true"
        className="mt-0.5 inline-flex size-4 shrink-0 items-center justify-center rounded-full border border-current text-[10px] leading-none font-bold"
      >
        {ICONS[tone]}
      </span>
      <div className="min-w-0 flex-1">
        <p className="font-medium">{title}</p>
        {children ? <div className="mt-1 text-[13px] leading-5 opacity-90">{children}</div> : null}
      </div>
      {actions ? <div className="flex shrink-0 items-start gap-2">{actions}</div> : null}
    </div>
  );
}
