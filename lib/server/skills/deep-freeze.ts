/**
 * Freezes `value` and everything reachable from it (objects and arrays; an object already frozen is
 * taken as frozen through), so a value shared between scans, registry snapshots and requests cannot be
 * changed by any of them. Returns `value`.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
