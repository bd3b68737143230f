import type { Metadata } from "next";
import { SecretsPage } from "@/components/secrets/secrets-page";

/** Page title. */
export const metadata: Metadata = { title: "Secrets" };

/** `/secrets` (admin): the skill secrets — set, give to skills, change, delete; never a value shown. */
export default function Page() {
  return <SecretsPage />;
}
