"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cx } from "@/components/ui/class-names";

const LINKS = [
  { href: "/skills", label: "Skills", match: (path: string) => path === "/" || path.startsWith("/skills") },
  { href: "/calls", label: "Calls", match: (path: string) => path.startsWith("/calls") },
  { href: "/loader", label: "Loader", match: (path: string) => path.startsWith("/loader") },
] as const;

/** The console's top bar: product name and the Skills / Calls / Loader sections, the current one marked. */
export function TopNav() {
  const pathname = usePathname() ?? "/";
  return (
    <header className="sticky top-0 z-20 border-b border-zinc-800 bg-zinc-950 text-zinc-300">
      <div className="mx-auto flex h-12 max-w-7xl items-center gap-6 px-4 sm:px-6">
        <Link href="/skills" className="flex items-center gap-2 text-sm font-semibold text-white focus-visible:outline-2 focus-visible:outline-blue-400">
          <span aria-hidden="true" className="grid size-6 place-items-center rounded bg-gradient-to-br from-emerald-400 to-blue-500 font-mono text-[11px] font-bold text-zinc-950">
            {">_"}
          </span>
          Skill console
        </Link>
        <nav aria-label="Main" className="flex h-full items-stretch gap-1">
          {LINKS.map((link) => {
            const active = link.match(pathname);
            return (
              <Link
                key={link.href}
                href={link.href}
                aria-current={active ? "page" : undefined}
                className={cx(
                  "relative flex items-center px-2.5 text-sm transition-colors hover:text-white focus-visible:outline-2 focus-visible:outline-blue-400",
                  active ? "text-white after:absolute after:inset-x-2 after:bottom-0 after:h-0.5 after:rounded-full after:bg-emerald-400" : "text-zinc-400",
                )}
              >
                {link.label}
              </Link>
            );
          })}
        </nav>
        <span className="ml-auto hidden text-xs text-zinc-500 sm:block" title="The API has no login yet; keep the console on loopback.">
          local · no auth
        </span>
      </div>
    </header>
  );
}
