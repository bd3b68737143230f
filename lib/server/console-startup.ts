import fs from "node:fs/promises";
import { expireDueApprovals } from "./approvals/expire-approvals";
import { ensureFirstAdmin } from "./auth/users";
import { interruptLapsedCalls } from "./calls/interrupt-calls";
import { databaseProvider, dbReady } from "./db";
import { config } from "./env";
import { ensureDefaultPersona } from "./personas/persona-store";
import { dropOrphanPayloads } from "./calls/call-payloads";
import { precompileRequestSchemas } from "./http/request-body";
import { API_OPERATIONS } from "./openapi/api-operations";
import { failStaleQueuedCalls } from "./requests/fail-stale-queued-calls";
import { warnAboutUnreadableSecrets } from "./secrets/secret-store";
import { getRegistry } from "./skills/registry";
import { followReplicaReloads } from "./skills/reload-skills";
import { startWatchingSkills } from "./skills/watch-skills";
import { installedPacksRoot } from "./packs/pack-layout";
import { startReplicaBus } from "./replica-bus";
// Registers what this replica does with other replicas' announcements (replica-bus.ts) at start-up,
// before any request loads them: lines and ends of followed calls, claim-poll wake-ups, rescans.
import "./calls/call-bus";
import "./workers/claim-calls";
import { mintLocalWorkerToken } from "./workers/local-worker";
import { startWebhookDispatcher } from "./webhooks/webhook-dispatcher";

const STARTUP_KEY = Symbol.for("skill-console.startup");
/**
 * Where scripts/console-server.mjs finds the function that mints the token of the local worker it
 * starts (`npm start`: the console and one local worker): `() => Promise<string>`, the token, handed to
 * the worker over a pipe and never through an environment variable.
 */
export const LOCAL_WORKER_HOOK_KEY = Symbol.for("skill-console.local-worker-token");
const store = globalThis as unknown as { [STARTUP_KEY]?: Promise<void> };

/**
 * Brings the console up once per process and resolves when it may serve requests (DESIGN.md: requests
 * are served only after the first loader scan): opens the database, creates the default persona and
 * the first admin when missing (issue 4), runs the first skill scan and starts watching the skill roots
 * (watch-skills.ts; SKILLS_WATCH), fails the queued calls whose skill
 * changed since (failStaleQueuedCalls), on PostgreSQL opens the replicas' bus (replica-bus.ts), drops CallPayload parts no stored call names, compiles the request body schemas, ends `interrupted` the running
 * calls whose worker's lease lapsed (and keeps sweeping for them every third of CALL_LEASE_MS, at most
 * every second), expires approvals and confirmations past APPROVAL_TTL_SECONDS every EXPIRY_SWEEP_MS,
 * starts the webhook dispatcher (webhook-dispatcher.ts), and installs the hook that mints the local worker's token (LOCAL_WORKER_HOOK_KEY). Idempotent; a
 * failure is returned to every waiter and retried by the next call. Rejects at once, starting nothing,
 * during `next build` (NEXT_PHASE=phase-production-build).
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

/**
 * Makes PACKS_PATH's `installed/` folder (DESIGN.md "Skill packs": one more root for both kinds), so
 * the loaders and the watcher find it from the first scan. A folder that cannot be made is logged;
 * packs then cannot be enabled, and nothing else changes.
 */
async function preparePacksFolder(): Promise<void> {
  try {
    await fs.mkdir(installedPacksRoot(config().packsPath), { recursive: true, mode: 0o755 });
  } catch (error) {
    console.error(`packs: ${installedPacksRoot(config().packsPath)} cannot be made: ${(error as Error).message}`);
  }
}

async function start(): Promise<void> {
  const { leaseMs } = config();
  await dbReady();
  // On PostgreSQL, listen to the other replicas before serving (a start that cannot yet listen goes
  // on after 5 s; the bus keeps trying and catches up once it listens).
  followReplicaReloads();
  if (databaseProvider() === "postgresql") await startReplicaBus();
  await ensureDefaultPersona();
  await ensureFirstAdmin();
  await preparePacksFolder();
  await getRegistry();
  // Not awaited: watching 10,000 skill folders takes a while to set up, and serving need not wait.
  void startWatchingSkills();
  await warnAboutUnreadableSecrets();
  await failStaleQueuedCalls();
  // Parts of long args whose request died before storing its call (call-payloads.ts).
  await dropOrphanPayloads();
  await sweepLapsedLeases();
  await precompileRequestSchemas(API_OPERATIONS.flatMap((operation) => (operation.body ? [operation.body.schema] : [])));
  (globalThis as Record<symbol, unknown>)[LOCAL_WORKER_HOOK_KEY] = mintLocalWorkerToken;
  setInterval(() => void sweepLapsedLeases(), Math.min(1000, Math.max(100, Math.floor(leaseMs / 3)))).unref();
  setInterval(() => void sweepExpired(), EXPIRY_SWEEP_MS).unref();
  startWebhookDispatcher();
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

let sweeping = false;

async function sweepLapsedLeases(): Promise<void> {
  if (sweeping) return;
  sweeping = true;
  try {
    for (const call of await interruptLapsedCalls()) {
      console.log(`calls: marked call ${call.id} interrupted (its worker ${call.workerName ?? call.workerId ?? "?"} stopped renewing its lease)`);
    }
  } catch (error) {
    console.error("ending calls of lapsed workers failed:", error);
  } finally {
    sweeping = false;
  }
}
