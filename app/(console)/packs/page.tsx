import type { Metadata } from "next";
import { PacksPage } from "@/components/packs/packs-page";

/** Page title. */
export const metadata: Metadata = { title: "Packs" };

/** `/packs` (admin): stage skill packs, and enable, roll back or uninstall their versions. */
export default function Page() {
  return <PacksPage />;
}
