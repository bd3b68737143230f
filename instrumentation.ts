/**
 * Next.js start-up hook: brings the console up as soon as the server starts (migrated database, first
 * skill scan with its log lines, recovery of interrupted calls) instead of on the first request.
 * A failure is logged and retried by the first request; it never blocks the server from starting.
 * Does nothing during `next build`.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // `next build` runs this hook too (while generating pages): starting the console there would create
  // the first admin, print its password into the build log and write ./data at build time.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { ensureConsoleStarted } = await import("./lib/server/console-startup");
  ensureConsoleStarted().catch((error: unknown) => console.error("console start-up failed:", error));
}
