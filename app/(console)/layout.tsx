import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/layout/console-shell";

/** Layout of the console pages: top nav + main column. */
export default function ConsoleLayout({ children }: { children: ReactNode }) {
  return <ConsoleShell>{children}</ConsoleShell>;
}
