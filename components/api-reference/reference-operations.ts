import type { OpenApiDocument, OpenApiOperation } from "@/lib/types/openapi";

/** One operation of the document with its method (upper case) and path. */
export interface ReferenceOperation {
  method: string;
  path: string;
  operation: OpenApiOperation;
}

/** The operations of one tag, in the document's order. */
export interface ReferenceGroup {
  tag: string;
  operations: ReferenceOperation[];
}

/**
 * The document's operations grouped by their first tag (in the order of `tags`, then any other),
 * keeping those whose method, path, tag, summary or access contains every word of `filter` (case
 * ignored; an empty filter keeps all). Returns the non-empty groups. Pure.
 */
export function groupOperations(document: OpenApiDocument, filter: string): ReferenceGroup[] {
  const words = filter.toLowerCase().split(/\s+/).filter((word) => word !== "");
  const groups = new Map<string, ReferenceOperation[]>((document.tags ?? []).map((tag) => [tag.name, []]));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const tag = operation.tags?.[0] ?? "Other";
      const haystack = [method, path, tag, operation.summary ?? "", operation["x-access"] ?? ""].join(" ").toLowerCase();
      if (!words.every((word) => haystack.includes(word))) continue;
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method: method.toUpperCase(), path, operation });
    }
  }
  return [...groups].filter(([, operations]) => operations.length > 0).map(([tag, operations]) => ({ tag, operations }));
}

/** The name of a `#/components/schemas/<name>` reference, or null for anything else. */
export function schemaRefName(schema: unknown): string | null {
  const ref = (schema as { $ref?: unknown } | null)?.$ref;
  return typeof ref === "string" && ref.startsWith("#/components/schemas/") ? ref.slice("#/components/schemas/".length) : null;
}
