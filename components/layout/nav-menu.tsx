"use client";

import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { usePendingApprovalCount } from "@/lib/client/approvals";
import type { Identity } from "@/lib/client/identity";
import { useHydrated } from "@/lib/client/use-hydrated";
import { NavLinks } from "./nav-links";
import { UserMenu } from "./user-menu";

function MenuIcon({ open }: { open: boolean }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round">
      {open ? <path d="M5 5l10 10M15 5L5 15" /> : <path d="M3 5.5h14M3 10h14M3 14.5h14" />}
    </svg>
  );
}

/**
 * The navigation below lg (issue 14 point 5: every page on a phone): a Menu button (aria-expanded,
 * aria-controls) that opens a panel under the top bar with every section of `NavLinks` and who is signed
 * in (`identity`: email, role, Sign out). Opening moves focus to the first link; Escape, a click outside,
 * a followed link or focus leaving the menu closes it (Escape hands focus back to the button). The button
 * shows a dot while approvals wait, since the Approvals count is inside the closed panel.
 */
export function NavMenu({ identity, pathname }: { identity: Identity; pathname: string }) {
  const [open, setOpen] = useState(false);
  const hydrated = useHydrated();
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const pending = usePendingApprovalCount();

  // A new page closes the menu (a link's click already does; back and forward buttons do not click).
  useEffect(() => setOpen(false), [pathname]);

  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>("a[href]")?.focus();
    const closeOutside = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", closeOutside);
    return () => document.removeEventListener("pointerdown", closeOutside);
  }, [open]);

  function onKeyDown(event: KeyboardEvent) {
    if (event.key !== "Escape" || !open) return;
    event.stopPropagation();
    setOpen(false);
    button.current?.focus();
  }

  return (
    <div
      ref={root}
      onKeyDown={onKeyDown}
      onBlur={(event) => {
        // Tabbing past the menu's last control closes it; focus moving inside it does not.
        if (event.relatedTarget && !root.current?.contains(event.relatedTarget as Node)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        disabled={!hydrated}
        onClick={() => setOpen((was) => !was)}
        className="relative inline-flex h-8 items-center gap-1.5 rounded-md border border-zinc-700 px-2.5 text-sm font-medium text-zinc-200 hover:border-zinc-500 hover:text-white focus-visible:outline-2 focus-visible:outline-blue-400 disabled:opacity-60"
      >
        <MenuIcon open={open} />
        Menu
        {pending ? (
          <>
            <span aria-hidden="true" className="absolute -top-1 -right-1 size-2.5 rounded-full bg-amber-400 ring-2 ring-zinc-950" />
            <span className="sr-only">, {pending} pending approvals</span>
          </>
        ) : null}
      </button>
      <div
        ref={panel}
        id={panelId}
        hidden={!open}
        className="absolute inset-x-0 top-full max-h-[calc(100dvh-var(--top-nav-height,3rem))] overflow-y-auto border-b border-zinc-800 bg-zinc-950 px-4 pt-3 pb-4 shadow-lg sm:px-6"
      >
        {open ? (
          <>
            <NavLinks role={identity.role} pathname={pathname} layout="menu" onNavigate={() => setOpen(false)} />
            <div className="mt-3 border-t border-zinc-800 pt-3">
              <UserMenu identity={identity} layout="menu" />
            </div>
          </>
        ) : null}
      </div>
    </div>
  );
}
