/** The dispatcher's wake-up, on globalThis (one per process, shared by the route bundles); set by startWebhookDispatcher. */
const WAKE_KEY = Symbol.for("skill-console.webhook-wake");
const store = globalThis as unknown as { [WAKE_KEY]?: () => void };

/** How long after a delivery is queued the dispatcher looks, in ms: time for the queuing transaction to commit. */
const WAKE_DELAY_MS = 25;

/** Installs the function that wakes this process's webhook dispatcher (webhook-dispatcher.ts). */
export function setWebhookWake(wake: () => void): void {
  store[WAKE_KEY] = wake;
}

/** Asks this process's dispatcher to look for due deliveries soon (WAKE_DELAY_MS); a no-op when none runs here. */
export function wakeWebhookDispatcher(): void {
  const wake = store[WAKE_KEY];
  if (wake) setTimeout(wake, WAKE_DELAY_MS).unref();
}
