import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentIdentity } from "@/lib/server/auth/current-identity";
import { safeNextPath } from "@/lib/client/safe-next-path";
import { LoginForm } from "./login-form";

/** Page title. */
export const metadata: Metadata = { title: "Sign in" };

/**
 * `/login` (issue 4 point 1), outside the console's navigation: the sign-in form. A person already
 * signed in goes on to `next` (when it is a same-site path) or to `/`.
 */
export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const next = safeNextPath((await searchParams).next);
  if (await currentIdentity()) redirect(next);
  return (
    <main id="main" className="flex min-h-screen items-start justify-center bg-zinc-50 px-4 pt-[12vh]">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2 text-base font-semibold text-zinc-900">
          <span aria-hidden="true" className="grid size-7 place-items-center rounded bg-gradient-to-br from-emerald-400 to-blue-500 font-mono text-xs font-bold text-zinc-950">
            {">_"}
          </span>
          Skill console
        </div>
        <LoginForm next={next} />
        <p className="mt-4 text-center text-xs leading-5 text-zinc-500">
          First start? The admin password was printed in the console output (or set <code className="font-mono">CONSOLE_ADMIN_EMAIL</code> /{" "}
          <code className="font-mono">CONSOLE_ADMIN_PASSWORD</code>).
        </p>
      </div>
    </main>
  );
}
