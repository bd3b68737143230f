"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { ApprovalsBadge } from "@/components/approvals/approvals-badge";
import { cx } from "@/components/ui/class-names";
import type { Role } from "@/lib/types/identity";

/** One section of the navigation; `adminOnly` sections are hidden from everyone else. */
interface NavLink {
  href: string;
  label: string;
  match: (path: string) => boolean;
  badge?: ReactNode;
  adminOnly?: boolean;
}

const under = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The console's sections in their order; a new section is one line here (the bar and the phone menu both read it). */
const LINKS: NavLink[] = [
  { href: "/skills", label: "Skills", match: (path) => path === "/" || under("/skills")(path) },
  { href: "/calls", label: "Calls", match: under("/calls") },
  { href: "/approvals", label: "Approvals", match: under("/approvals"), badge: <ApprovalsBadge /> },
  { href: "/personas", label: "Personas", match: under("/personas") },
  { href: "/tokens", label: "Tokens", match: under("/tokens") },
  { href: "/users", label: "Users", match: under("/users"), adminOnly: true },
  { href: "/secrets", label: "Secrets", match: under("/secrets"), adminOnly: true },
  { href: "/packs", label: "Packs", match: under("/packs"), adminOnly: true },
  { href: "/webhooks", label: "Webhooks", match: under("/webhooks"), adminOnly: true },
  { href: "/audit", label: "Audit", match: under("/audit") },
  { href: "/loader", label: "Loader", match: under("/loader") },
  { href: "/workers", label: "Workers", match: under("/workers") },
  { href: "/api-reference", label: "API reference", match: under("/api-reference") },
];

/** Where the links sit: one row in the top bar (lg and up), or a column in the phone menu. */
export type NavLayout = "bar" | "menu";

const LAYOUTS: Record<NavLayout, { nav: string; link: string; active: string }> = {
  bar: {
    nav: "flex h-full min-w-0 items-stretch gap-x-0.5 overflow-x-auto",
    link: "relative flex shrink-0 items-center gap-1.5 px-2 text-sm",
    active: "text-white after:absolute after:inset-x-2 after:bottom-0 after:h-0.5 after:rounded-full after:bg-emerald-400",
  },
  menu: {
    nav: "grid grid-cols-2 gap-1",
    link: "flex min-h-10 items-center gap-1.5 rounded-md px-3 text-sm hover:bg-zinc-800",
    active: "bg-zinc-800 text-white shadow-[inset_3px_0_0_var(--color-emerald-400)]",
  },
};

/**
 * The main navigation (`<nav aria-label="Main">`) for a person of `role` (undefined while unknown: the
 * admin-only sections stay hidden) at `pathname`: the current section carries aria-current="page",
 * Approvals its count of pending requests. `layout` picks the bar or the phone menu's look; `onNavigate`
 * runs when a link is followed (the menu closes then, also on a link to the page already shown).
 */
export function NavLinks({ role, pathname, layout, onNavigate }: { role: Role | undefined; pathname: string; layout: NavLayout; onNavigate?: () => void }) {
  const look = LAYOUTS[layout];
  return (
    <nav aria-label="Main" className={look.nav}>
      {LINKS.filter((link) => !link.adminOnly || role === "admin").map((link) => {
        const active = link.match(pathname);
        return (
          <Link
            key={link.href}
            href={link.href}
            aria-current={active ? "page" : undefined}
            onClick={onNavigate}
            className={cx(look.link, "transition-colors hover:text-white focus-visible:outline-2 focus-visible:outline-blue-400", active ? look.active : "text-zinc-400")}
          >
            {link.label}
            {link.badge}
          </Link>
        );
      })}
    </nav>
  );
}
