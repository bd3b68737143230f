import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "./providers";
import "./globals.css";

/** Title template and description shared by every page. */
export const metadata: Metadata = {
  title: { default: "Skill console", template: "%s · Skill console" },
  description: "See, test-run and audit every skill an AI agent may call.",
};

/** The root HTML document: global styles and the client providers. */
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
