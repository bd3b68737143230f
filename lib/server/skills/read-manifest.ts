import fs from "node:fs/promises";
import { checkManifest, type ManifestCheck } from "@/lib/validation/manifest-schema";
import { isUnderRoot } from "./allowlist-roots";
import { describeFsError } from "./loader-log";
import type { FoundManifest } from "./walk-manifests";

/** Largest `skill.json` read (1 MiB); a manifest is a few hundred bytes, anything bigger is a mistake. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Reads, parses and checks one `skill.json` found under `root` (a realpath'd allow-list root). A
 * manifest that is a symlink must resolve inside the root (deny when in doubt); it must be a regular
 * file no larger than MAX_MANIFEST_BYTES (so a FIFO named skill.json can never block start-up); a
 * UTF-8 byte-order mark is tolerated; the JSON must parse and pass checkManifest. Never throws.
 * Returns checkManifest's result, or `{ ok: false, message, name: null }` where message is the
 * JSON.parse message or the file problem — the `<message>` of the seed's
 * `skill loader: parse <path>: <message>` line.
 */
export async function readManifest(found: FoundManifest, root: string): Promise<ManifestCheck> {
  const fail = (message: string): ManifestCheck => ({ ok: false, message, name: null });
  if (found.kind === "other") return fail("not a regular file");
  let text: string;
  try {
    if (found.kind === "symlink") {
      const target = await fs.realpath(found.path);
      if (!isUnderRoot(root, target)) return fail(`manifest ${target} escapes allowlist root ${root}`);
    }
    const stat = await fs.stat(found.path);
    if (!stat.isFile()) return fail("not a regular file");
    if (stat.size > MAX_MANIFEST_BYTES) return fail(`larger than ${MAX_MANIFEST_BYTES} bytes`);
    text = await fs.readFile(found.path, "utf8");
  } catch (error) {
    return fail(`cannot read: ${describeFsError(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  return checkManifest(value);
}
