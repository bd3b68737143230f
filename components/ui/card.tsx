import type { HTMLAttributes, ReactNode } from "react";
import { cx } from "./class-names";

/** A white bordered panel; pass `as="section"` semantics through `aria-labelledby` when titled. */
export function Card({ className, children, ...rest }: HTMLAttributes<HTMLElement>) {
  return (
    <section className={cx("rounded-lg border border-zinc-200 bg-white shadow-xs", className)} {...rest}>
      {children}
    </section>
  );
}

/** The title row of a Card: a heading (`id` for aria-labelledby), optional description and actions. */
export function CardHeader({
  title,
  titleId,
  description,
  actions,
  className,
}: {
  title: ReactNode;
  titleId?: string;
  description?: ReactNode;
  actions?: ReactNode;
  className?: string;
}) {
  return (
    <div className={cx("flex min-h-11 items-center justify-between gap-3 border-b border-zinc-200 px-4 py-2", className)}>
      <div className="min-w-0">
        <h2 id={titleId} className="text-sm font-semibold text-zinc-900">
          {title}
        </h2>
        {description ? <p className="text-xs text-zinc-500">{description}</p> : null}
      </div>
      {actions ? <div className="flex shrink-0 items-center gap-2">{actions}</div> : null}
    </div>
  );
}

/** The padded content area of a Card. */
export function CardBody({ className, children }: { className?: string; children: ReactNode }) {
  return <div className={cx("p-4", className)}>{children}</div>;
}
