"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";
import { useApprovalFeed } from "@/lib/client/approvals";
import { useIdentity } from "@/lib/client/identity";
import { NavLinks } from "./nav-links";
import { NavMenu } from "./nav-menu";
import { UserMenu } from "./user-menu";

/**
 * The console's top bar: product name, the sections (the current one marked; Approvals with its count
 * of pending requests; Users, Secrets and Packs for admins only) and the signed-in person with Sign out.
 * From lg up the sections and the person sit in the bar; below lg they fold into the Menu button's panel
 * (NavMenu), so the bar is one row on a phone (issue 14 point 5).
 */
export function TopNav() {
  const pathname = usePathname() ?? "/";
  const identity = useIdentity();
  // One approvals feed per tab, once signed in: the badge and the approvals pages update live.
  const feed = useApprovalFeed(identity.data !== undefined);
  const header = useRef<HTMLElement>(null);
  // The bar's height, kept in --top-nav-height, keeps a focused or scrolled-to field clear of it
  // (globals.css scroll-padding-top) and bounds the phone menu's panel.
  useEffect(() => {
    const element = header.current;
    if (!element) return;
    const observer = new ResizeObserver(() => document.documentElement.style.setProperty("--top-nav-height", `${element.offsetHeight}px`));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <header ref={header} data-approval-feed={feed} className="sticky top-0 z-20 border-b border-zinc-800 bg-zinc-950 text-zinc-300">
      <div className="mx-auto flex h-12 max-w-7xl items-center gap-x-4 px-4 sm:px-6">
        <Link href="/skills" className="flex shrink-0 items-center gap-2 text-sm font-semibold text-white focus-visible:outline-2 focus-visible:outline-blue-400">
          <span aria-hidden="true" className="grid size-6 place-items-center rounded bg-gradient-to-br from-emerald-400 to-blue-500 font-mono text-[11px] font-bold text-zinc-950">
            {">_"}
          </span>
          <span className="lg:max-xl:sr-only">Skill console</span>
        </Link>
        <div className="hidden h-full min-w-0 lg:block">
          <NavLinks role={identity.data?.role} pathname={pathname} layout="bar" />
        </div>
        {identity.data ? (
          <div className="ml-auto shrink-0">
            <div className="hidden lg:block">
              <UserMenu identity={identity.data} />
            </div>
            <div className="lg:hidden">
              <NavMenu identity={identity.data} pathname={pathname} />
            </div>
          </div>
        ) : null}
      </div>
    </header>
  );
}
