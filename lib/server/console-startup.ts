import { expireDueApprovals } from "./approvals/expire-approvals";
import { ensureFirstAdmin } from "./auth/users";
import { recoverInterruptedCalls, renewLeases } from "./calls/call-lease";
import { interruptLocalCalls } from "./calls/call-runner";
import { dbReady } from "./db";
import { config } from "./env";
import { ensureDefaultPersona } from "./personas/persona-store";
import { getRegistry } from "./skills/registry";

const STARTUP_KEY = Symbol.for("skill-console.startup");
/**
 * Where scripts/console-server.mjs finds what to run when it gets SIGTERM/SIGINT: a function of the
 * signal's name that ends this console's calls `interrupted` (their groups terminated) and resolves.
 */
export const SHUTDOWN_HOOK_KEY = Symbol.for("skill-console.shutdown");
const store = globalThis as unknown as { [STARTUP_KEY]?: Promise<void> };

/**
 * Brings the console up once per process and resolves when it may serve requests (DESIGN.md: requests
 * are served only after the first loader scan): opens the database, creates the default persona and the first admin when missing (issue 4), runs the first skill scan, marks
 * `interrupted` the calls of consoles whose lease lapsed, then keeps renewing this console's leases every
 * third of CALL_LEASE_MS and sweeping for lapsed leases every CALL_LEASE_MS, and expires approvals and
 * confirmations past APPROVAL_TTL_SECONDS every EXPIRY_SWEEP_MS, and installs the shutdown hook
 * (SHUTDOWN_HOOK_KEY) that ends this console's calls `interrupted` when it stops. Idempotent; a failure is
 * returned to every waiter and retried by the next call. Rejects at once, starting nothing, during
 * `next build` (NEXT_PHASE=phase-production-build).
 */
export function ensureConsoleStarted(): Promise<void> {
  // `next build` evaluates pages and modules; the console must never start there (it would create the
  // first admin and print its password into the build log, and write ./data on the build machine).
  if (process.env.NEXT_PHASE === "phase-production-build") return Promise.reject(new Error("the console does not start during next build"));
  store[STARTUP_KEY] ??= start().catch((error: unknown) => {
    store[STARTUP_KEY] = undefined;
    throw error;
  });
  return store[STARTUP_KEY];
}

async function start(): Promise<void> {
  const { leaseMs } = config();
  await dbReady();
  await ensureDefaultPersona();
  await ensureFirstAdmin();
  await getRegistry();
  await recover();
  (globalThis as Record<symbol, unknown>)[SHUTDOWN_HOOK_KEY] = (signal: string) =>
    interruptLocalCalls(`the console stopped (${signal}) while the call ran; its process group was terminated`);
  setInterval(() => void renewLeases().catch((error: unknown) => console.error("lease renewal failed:", error)), Math.max(100, Math.floor(leaseMs / 3))).unref();
  setInterval(() => void recover(), leaseMs).unref();
  setInterval(() => void sweepExpired(), EXPIRY_SWEEP_MS).unref();
}

/** How often the console expires approvals and confirmations past their TTL, in ms. */
const EXPIRY_SWEEP_MS = 5_000;

async function sweepExpired(): Promise<void> {
  try {
    await expireDueApprovals();
  } catch (error) {
    console.error("expiring approvals failed:", error);
  }
}

async function recover(): Promise<void> {
  try {
    for (const call of await recoverInterruptedCalls()) {
      console.log(`calls: marked call ${call.id} interrupted (process group: ${call.group})`);
    }
  } catch (error) {
    console.error("recovering interrupted calls failed:", error);
  }
}
