"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, type ReactNode } from "react";
import { ApprovalsBadge } from "@/components/approvals/approvals-badge";
import { cx } from "@/components/ui/class-names";
import { useApprovalFeed } from "@/lib/client/approvals";
import { useIdentity } from "@/lib/client/identity";
import type { Role } from "@/lib/types/identity";
import { UserMenu } from "./user-menu";

/** One section of the navigation; `adminOnly` sections are hidden from everyone else. */
interface NavLink {
  href: string;
  label: string;
  match: (path: string) => boolean;
  badge?: ReactNode;
  adminOnly?: boolean;
}

const under = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);

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

function visibleLinks(role: Role | undefined): NavLink[] {
  return LINKS.filter((link) => !link.adminOnly || role === "admin");
}

/**
 * The console's top bar: product name, the sections (the current one marked; Approvals with its count
 * of pending requests; Users, Secrets and Packs for admins only) and the signed-in person with Sign out.
 */
export function TopNav() {
  const pathname = usePathname() ?? "/";
  const identity = useIdentity();
  // One approvals feed per tab, once signed in: the badge and the approvals pages update live.
  const feed = useApprovalFeed(identity.data !== undefined);
  const header = useRef<HTMLElement>(null);
  // The bar is one row from md up and wraps below (up to ~110 px at 390 px): its height, kept in
  // --top-nav-height, keeps a focused or scrolled-to field clear of it (globals.css scroll-padding-top).
  useEffect(() => {
    const element = header.current;
    if (!element) return;
    const observer = new ResizeObserver(() => document.documentElement.style.setProperty("--top-nav-height", `${element.offsetHeight}px`));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <header ref={header} data-approval-feed={feed} className="sticky top-0 z-20 border-b border-zinc-800 bg-zinc-950 text-zinc-300">
      {/* Below md the sections wrap onto a row of their own: every one stays visible, none scrolls out of sight. */}
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-0.5 px-4 py-1.5 sm:px-6 md:h-12 md:flex-nowrap md:py-0">
        <Link href="/skills" className="flex shrink-0 items-center gap-2 text-sm font-semibold text-white focus-visible:outline-2 focus-visible:outline-blue-400">
          <span aria-hidden="true" className="grid size-6 place-items-center rounded bg-gradient-to-br from-emerald-400 to-blue-500 font-mono text-[11px] font-bold text-zinc-950">
            {">_"}
          </span>
          <span className="hidden md:inline">Skill console</span>
        </Link>
        <nav aria-label="Main" className="order-last -mx-2 flex w-full min-w-0 flex-wrap items-stretch gap-x-0.5 md:order-none md:mx-0 md:h-full md:w-auto md:flex-nowrap md:overflow-x-auto">
          {visibleLinks(identity.data?.role).map((link) => {
            const active = link.match(pathname);
            return (
              <Link
                key={link.href}
                href={link.href}
                aria-current={active ? "page" : undefined}
                className={cx(
                  "relative flex shrink-0 items-center gap-1.5 px-2 py-1.5 text-sm transition-colors md:py-0 hover:text-white focus-visible:outline-2 focus-visible:outline-blue-400",
                  active ? "text-white after:absolute after:inset-x-2 after:bottom-0 after:h-0.5 after:rounded-full after:bg-emerald-400" : "text-zinc-400",
                )}
              >
                {link.label}
                {link.badge}
              </Link>
            );
          })}
        </nav>
        <div className="ml-auto shrink-0">{identity.data ? <UserMenu identity={identity.data} /> : null}</div>
      </div>
    </header>
  );
}
