import type { Metadata } from "next";
import { TokensPage } from "@/components/tokens/tokens-page";

/** Page title. */
export const metadata: Metadata = { title: "Tokens" };

/** `/tokens`: the API tokens of agents — create (shown once), list, revoke. */
export default function Page() {
  return <TokensPage />;
}
