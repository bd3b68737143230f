import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";

/** A public key packs may be signed with (CONSOLE_PACK_TRUSTED_KEYS `name=key`). */
export interface PackTrustedKey {
  name: string;
  key: KeyObject;
}

/** The file at the top of a pack holding its signature: base64 of an ed25519 signature over the digest list. */
export const PACK_SIGNATURE_FILE = "pack.sig";

/** First line of every digest list: names the format, so a list of another format never verifies. */
export const DIGEST_LIST_HEADER = "skill-console pack digests v1";

/** The DER prefix of an ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** One entry of a pack as the digest list names it: a file (`f`, or `x` when executable) with its SHA-256, or a link (`l`) with the SHA-256 of its target text. */
export interface DigestListEntry {
  path: string;
  kind: "f" | "x" | "l";
  sha256: string;
}

/**
 * The digest list of a pack (DESIGN.md "Skill packs": signatures are over it): the header line, then one
 * line per file and link sorted by path (byte order) — `<kind> <sha256> <path as a JSON string>` —
 * each ending in `\n`. Folders are not listed (an empty folder changes nothing a skill runs); the
 * signature file itself is left out by the caller. Pure.
 */
export function digestListOf(entries: readonly DigestListEntry[]): string {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  return `${DIGEST_LIST_HEADER}\n${sorted.map((entry) => `${entry.kind} ${entry.sha256} ${JSON.stringify(entry.path)}\n`).join("")}`;
}

/** A pack's digest: SHA-256 (hex) of its digest list's UTF-8 bytes. Pure. */
export function packDigestOf(digestList: string): string {
  return createHash("sha256").update(digestList).digest("hex");
}

/** SHA-256 (hex) of a text, as the digest list hashes a link's target. */
export function sha256Text(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Parses CONSOLE_PACK_TRUSTED_KEYS: `name=key` pairs separated by `,` or new lines; each key an ed25519
 * public key as base64 of its raw 32 bytes, of its SPKI DER, or a PEM (its base64 body, or the whole
 * PEM with `\n` escapes). Names are 1–64 letters, digits, `.`, `_`, `-`, `@`. Returns the keys; throws
 * Error naming the bad entry. Pure.
 */
export function parseTrustedKeys(raw: string): PackTrustedKey[] {
  const keys: PackTrustedKey[] = [];
  for (const piece of raw.split(/[,\n]/).map((part) => part.trim()).filter((part) => part !== "")) {
    const equals = piece.indexOf("=");
    if (equals <= 0) throw new Error(`${JSON.stringify(piece.slice(0, 40))} must be name=key`);
    const name = piece.slice(0, equals).trim();
    if (!/^[A-Za-z0-9._@-]{1,64}$/.test(name)) throw new Error(`key name ${JSON.stringify(name)} must be 1–64 letters, digits, '.', '_', '-' or '@'`);
    if (keys.some((key) => key.name === name)) throw new Error(`key name ${JSON.stringify(name)} appears twice`);
    keys.push({ name, key: publicKeyOf(name, piece.slice(equals + 1).trim()) });
  }
  return keys;
}

function publicKeyOf(name: string, text: string): KeyObject {
  const body = text.replace(/\\n/g, "\n").replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  const der = Buffer.from(body, "base64");
  let key: KeyObject;
  try {
    key = createPublicKey({ key: der.length === 32 ? Buffer.concat([ED25519_SPKI_PREFIX, der]) : der, format: "der", type: "spki" });
  } catch {
    throw new Error(`key ${name} is not a public key (base64 of a raw ed25519 key, its SPKI DER, or a PEM)`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`key ${name} is an ${key.asymmetricKeyType ?? "unknown"} key, not ed25519`);
  return key;
}

/** What a pack's signature says: unsigned, signed by a trusted key, or a signature no trusted key verifies. */
export type SignatureCheck = { status: "unsigned" } | { status: "signed"; by: string } | { status: "bad"; reason: string };

/**
 * Checks a pack's `pack.sig` (base64 of a 64-byte ed25519 signature, surrounding white space ignored)
 * over its digest list against each trusted key (DESIGN.md "Skill packs"). Returns `unsigned` when
 * there is no signature file, `signed` with the first key that verifies, or `bad` with the reason (not
 * base64 of 64 bytes, no trusted key configured, or no trusted key verifies it). Pure.
 */
export function checkPackSignature(signature: Buffer | null, digestList: string, trusted: readonly PackTrustedKey[]): SignatureCheck {
  if (signature === null) return { status: "unsigned" };
  const text = signature.toString("utf8").trim();
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, "base64") : Buffer.alloc(0);
  if (bytes.length !== 64) return { status: "bad", reason: `${PACK_SIGNATURE_FILE} must hold base64 of a 64-byte ed25519 signature` };
  if (trusted.length === 0) return { status: "bad", reason: `${PACK_SIGNATURE_FILE} is signed, but no key is trusted (CONSOLE_PACK_TRUSTED_KEYS is empty), so the signature cannot be checked` };
  const message = Buffer.from(digestList, "utf8");
  for (const candidate of trusted) {
    if (verify(null, message, candidate.key, bytes)) return { status: "signed", by: candidate.name };
  }
  return { status: "bad", reason: `${PACK_SIGNATURE_FILE} is not a signature of this pack's digest list by any trusted key (${trusted.map((key) => key.name).join(", ")}): the files differ from what was signed, or the signer is not trusted` };
}

/**
 * Why an unsigned pack is refused (DESIGN.md "Skill packs": accepted only when the operator allows
 * unsigned packs — by default from local folders, uploads by an admin and local git repositories,
 * never from remote sources), or null when it is allowed. `allowed` is PACKS_ALLOW_UNSIGNED; `local`
 * says the source is on this host. Pure.
 */
export function unsignedRefusal(allowed: "local" | "always" | "never", local: boolean): string | null {
  if (allowed === "never") return `the pack is unsigned and PACKS_ALLOW_UNSIGNED=never: sign its digest list with a key in CONSOLE_PACK_TRUSTED_KEYS (${PACK_SIGNATURE_FILE})`;
  if (allowed === "local" && !local) return `the pack comes from a remote source and is unsigned: sign its digest list with a key in CONSOLE_PACK_TRUSTED_KEYS (${PACK_SIGNATURE_FILE}), or set PACKS_ALLOW_UNSIGNED=always`;
  return null;
}

/** The lines of a digest list after its header, each naming one file or link. Pure. */
export function digestListBody(list: string): string[] {
  return list
    .split("\n")
    .slice(1)
    .filter((line) => line !== "");
}

/** The path one line of a digest list names (`<kind> <sha256> "<path>"`). Pure. */
function pathOfLine(line: string): string {
  return JSON.parse(line.slice(line.indexOf(" ", 2) + 1)) as string;
}

/**
 * The lines of a digest list that lie in none of `folders` (relative skill folders; a file is in a
 * folder when its path starts with `<folder>/`): the files a pack's skills share. `withManifest`
 * false leaves `pack.json` out (it changes with every version). Pure.
 */
export function sharedLines(list: string, folders: readonly string[], withManifest = true): string[] {
  return digestListBody(list).filter((line) => {
    const file = pathOfLine(line);
    return !folders.some((folder) => file.startsWith(`${folder}/`)) && (withManifest || file !== "pack.json");
  });
}

/** The paths whose lines differ between two sets of digest-list lines (added, removed or changed), sorted. Pure. */
export function changedPathsOfLines(before: readonly string[], after: readonly string[]): string[] {
  const a = new Set(before);
  const b = new Set(after);
  const changed = new Set<string>();
  for (const line of before) if (!b.has(line)) changed.add(pathOfLine(line));
  for (const line of after) if (!a.has(line)) changed.add(pathOfLine(line));
  return [...changed].sort();
}

/** The paths whose lines differ between two digest lists (changedPathsOfLines of their bodies), sorted. Pure. */
export function changedPaths(before: string, after: string): string[] {
  return changedPathsOfLines(digestListBody(before), digestListBody(after));
}
