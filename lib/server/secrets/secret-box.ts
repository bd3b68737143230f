import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";

/** Bytes of an AES-256-GCM nonce. */
const NONCE_BYTES = 12;
/** Bytes of an AES-256-GCM tag. */
const TAG_BYTES = 16;

/** A secret's value as the database keeps it (prisma/schema.prisma Secret). */
export interface SealedSecret {
  /** base64 of nonce ‖ ciphertext ‖ tag; the secret's name is the associated data. */
  ciphertext: string;
  /** keyIdOf(key) of the key that sealed it. */
  keyId: string;
  /** fingerprintOf(key, value). */
  fingerprint: string;
}

/** Error for a sealed value this key cannot open: another key sealed it, or the row was altered. */
export class SecretUnreadableError extends Error {}

/** First 16 hex digits of SHA-256(key): names a key without revealing it. Pure. */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/**
 * `hmac-sha256:` + the first 16 hex digits of HMAC-SHA256(key, value): what the console shows of a
 * secret's value (tells two values apart; without the key it cannot be checked against guesses). Pure.
 */
export function fingerprintOf(key: Buffer, value: string): string {
  return `hmac-sha256:${createHmac("sha256", key).update(value, "utf8").digest("hex").slice(0, 16)}`;
}

/**
 * Seals `value` under `key` (AES-256-GCM, a fresh random nonce, `name` as associated data so a sealed
 * value cannot be moved to another secret's row). Returns the SealedSecret. Pure apart from the nonce.
 */
export function sealSecret(key: Buffer, name: string, value: string): SealedSecret {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(Buffer.from(name, "utf8"));
  const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
  return { ciphertext: Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64"), keyId: keyIdOf(key), fingerprint: fingerprintOf(key, value) };
}

/**
 * Opens what sealSecret sealed for `name`. Throws SecretUnreadableError, naming the secret (never its
 * value), when `keyId` is not this key's or the ciphertext does not authenticate.
 */
export function openSecret(key: Buffer, name: string, sealed: Pick<SealedSecret, "ciphertext" | "keyId">): string {
  if (sealed.keyId !== keyIdOf(key)) {
    throw new SecretUnreadableError(`secret ${name} was sealed with another key (${sealed.keyId}; this console's is ${keyIdOf(key)}): set CONSOLE_SECRET_KEY to that key, or set the secret again`);
  }
  const bytes = Buffer.from(sealed.ciphertext, "base64");
  if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new SecretUnreadableError(`secret ${name} is damaged in the database: set it again`);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(name, "utf8"));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretUnreadableError(`secret ${name} does not authenticate under this console's key (altered in the database?): set it again`);
  }
}
