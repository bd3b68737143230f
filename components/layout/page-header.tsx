import type { ReactNode } from "react";

/**
 * The heading block of a page: optional breadcrumb-like `eyebrow` above, the title (an h1),
 * badges next to it, a description below and actions on the right.
 */
export function PageHeader({
  eyebrow,
  title,
  badges,
  description,
  actions,
}: {
  eyebrow?: ReactNode;
  title: ReactNode;
  badges?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="mb-5 flex flex-wrap items-start justify-between gap-4">
      <div className="min-w-0 max-w-full">
        {eyebrow ? <div className="mb-1 text-xs text-zinc-500">{eyebrow}</div> : null}
        <div className="flex flex-wrap items-center gap-2">
          {/* A skill's name is one unbroken word of up to 64 characters: it breaks anywhere rather than widen the page. */}
          <h1 className="min-w-0 text-xl font-semibold tracking-tight [overflow-wrap:anywhere] text-zinc-900">{title}</h1>
          {badges}
        </div>
        {description ? <div className="mt-1 max-w-3xl text-sm text-zinc-600">{description}</div> : null}
      </div>
      {actions ? <div className="flex max-w-full flex-wrap items-center gap-2">{actions}</div> : null}
    </div>
  );
}
