import type { Metadata } from "next";
import { PersonasPage } from "@/components/personas/personas-page";

/** Page title. */
export const metadata: Metadata = { title: "Personas" };

/** `/personas`: the personas — list, create, edit, delete, YAML import and export (issue 4 point 2). */
export default function Page() {
  return <PersonasPage />;
}
