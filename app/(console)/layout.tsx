import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/layout/console-shell";
import { currentIdentity, currentPath } from "@/lib/server/auth/current-identity";
import { loginPathFor } from "@/lib/client/safe-next-path";
import { queryKeys } from "@/lib/client/query-keys";

/**
 * Layout of the console pages (issue 4 point 1: every page needs a session): resolves who is asking on
 * the server and redirects to `/login?next=<this page>` when nobody is; otherwise renders the shell
 * with the identity already in the react-query cache (useIdentity() reads it without a round trip).
 */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const identity = await currentIdentity();
  if (!identity) redirect(loginPathFor(await currentPath()));
  const queryClient = new QueryClient();
  queryClient.setQueryData(queryKeys.session.identity(), identity);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ConsoleShell>{children}</ConsoleShell>
    </HydrationBoundary>
  );
}
