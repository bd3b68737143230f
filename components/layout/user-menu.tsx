"use client";

import { Spinner } from "@/components/ui/spinner";
import { useSignOut, type Identity } from "@/lib/client/identity";

/**
 * The signed-in person in the top bar: email and role, and a Sign out button (`POST
 * /api/v1/auth/logout`, then the login page). A failed sign-out says so in the button's tooltip.
 */
export function UserMenu({ identity }: { identity: Identity }) {
  const signOut = useSignOut();
  return (
    <div className="flex items-center gap-3 text-xs">
      <span className="hidden max-w-56 min-w-0 flex-col items-end leading-4 sm:flex" data-testid="signed-in-as">
        <span className="truncate text-zinc-200" title={identity.email}>
          {identity.email}
        </span>
        <span className="text-zinc-500">{identity.role}</span>
      </span>
      <button
        type="button"
        onClick={() => signOut.mutate()}
        disabled={signOut.isPending || signOut.isSuccess}
        title={signOut.isError ? `Sign out failed: ${signOut.error.message}` : `Signed in as ${identity.email} (${identity.role})`}
        className="inline-flex h-7 items-center gap-1.5 rounded-md border border-zinc-700 px-2.5 font-medium text-zinc-200 hover:border-zinc-500 hover:text-white focus-visible:outline-2 focus-visible:outline-blue-400 disabled:opacity-60"
      >
        {signOut.isPending ? <Spinner /> : null}
        {signOut.isError ? "Sign out (retry)" : "Sign out"}
      </button>
    </div>
  );
}
