/**
 * Deepest nesting of arrays and objects the console accepts in JSON it did not write itself: a call's
 * args and a child's result. V8's JSON.parse is iterative and takes any depth, but JSON.stringify
 * (Response.json, the stored args, the SSE `end` event) and ajv's validators recurse, and overflow the
 * stack a few thousand levels down: one such document stored as a result would answer 500 on every
 * listing that includes it, forever. 128 levels is far beyond any honest args object or result.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * True when `value` (a parsed JSON value) nests arrays/objects more than `maxDepth` levels deep: a
 * scalar has depth 0, `{}` and `[]` depth 1, `{"a": [1]}` depth 2. Iterative (never overflows the
 * stack itself) and stops at the first branch past the limit. Only own enumerable values are visited.
 */
export function exceedsJsonDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
