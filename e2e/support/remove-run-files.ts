import fs from "node:fs";

/**
 * Playwright global teardown: removes what this run made for its own server outside CI — its build
 * folder (`.next-e2e-<port>`, ~300 MB), its database files and its copy of the native skills
 * (playwright.config.ts gives each run its own port) — so repeated runs do not fill the disk. CI
 * builds into `.next` on a throwaway machine and keeps it. Never throws.
 */
export default function removeRunFiles(): void {
  if (process.env.CI) return;
  const paths = (process.env.E2E_RUN_FILES ?? "").split("\n").filter(Boolean);
  for (const entry of paths) {
    try {
      fs.rmSync(entry, { recursive: true, force: true });
    } catch (error) {
      console.error(`e2e: could not remove ${entry}: ${(error as Error).message}`);
    }
  }
}
