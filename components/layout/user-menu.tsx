"use client";

import { Spinner } from "@/components/ui/spinner";
import { cx } from "@/components/ui/class-names";
import { useSignOut, type Identity } from "@/lib/client/identity";
import { useHydrated } from "@/lib/client/use-hydrated";

/**
 * The signed-in person: email and role, and a Sign out button (`POST /api/v1/auth/logout`, then the
 * login page). A failed sign-out says so in the button. `layout` "bar" (default) is the top bar's compact
 * form (the email hidden below sm); "menu" is the phone menu's block, with the whole email and a wide
 * button.
 */
export function UserMenu({ identity, layout = "bar" }: { identity: Identity; layout?: "bar" | "menu" }) {
  const signOut = useSignOut();
  const hydrated = useHydrated();
  const inMenu = layout === "menu";
  return (
    <div className={cx("flex items-center gap-3 text-xs", inMenu && "flex-wrap justify-between")}>
      <span
        className={cx("min-w-0 flex-col leading-4", inMenu ? "flex" : "hidden max-w-56 items-end sm:flex")}
        data-testid={inMenu ? "menu-signed-in-as" : "signed-in-as"}
      >
        {inMenu ? <span className="text-zinc-500">Signed in as</span> : null}
        <span className={cx("text-zinc-200", inMenu ? "text-sm [overflow-wrap:anywhere]" : "truncate")} title={identity.email}>
          {identity.email}
        </span>
        <span className="text-zinc-500">{identity.role}</span>
      </span>
      <button
        type="button"
        onClick={() => signOut.mutate()}
        disabled={!hydrated || signOut.isPending || signOut.isSuccess}
        title={signOut.isError ? `Sign out failed: ${signOut.error.message}` : `Signed in as ${identity.email} (${identity.role})`}
        className={cx(
          "inline-flex items-center justify-center gap-1.5 rounded-md border border-zinc-700 px-2.5 font-medium text-zinc-200 hover:border-zinc-500 hover:text-white focus-visible:outline-2 focus-visible:outline-blue-400 disabled:opacity-60",
          inMenu ? "h-9" : "h-7",
        )}
      >
        {signOut.isPending ? <Spinner /> : null}
        {signOut.isError ? "Sign out (retry)" : "Sign out"}
      </button>
    </div>
  );
}
