import { randomUUID } from "node:crypto";

const INSTANCE_KEY = Symbol.for("skill-console.instance-id");
const store = globalThis as unknown as { [INSTANCE_KEY]?: string };

/**
 * The id of this console process, recorded as the owner of every call it runs (DESIGN.md owner-and-lease
 * rule). New for every process, so a restarted console never mistakes a dead predecessor's calls for its own.
 */
export function consoleInstanceId(): string {
  store[INSTANCE_KEY] ??= randomUUID();
  return store[INSTANCE_KEY];
}
