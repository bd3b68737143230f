import Link from "next/link";
import { ConsoleShell } from "@/components/layout/console-shell";
import { EmptyState } from "@/components/ui/empty-state";

/** The 404 page for any unknown console address. */
export default function NotFound() {
  return (
    <ConsoleShell>
      <EmptyState
        title="Page not found"
        actions={
          <Link href="/skills" className="text-sm font-medium text-blue-700 hover:underline">
            Go to the skills list
          </Link>
        }
      >
        Nothing lives at this address in the console.
      </EmptyState>
    </ConsoleShell>
  );
}
