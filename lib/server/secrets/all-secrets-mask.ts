import "server-only";
import { db } from "../db";
import { openSecret, SecretUnreadableError } from "./secret-box";
import { secretKey } from "./secret-key";
import { secretMasker, type SecretMask } from "./secret-masking";

/**
 * The value of every secret the console holds that this console's key opens, for what it writes out
 * about every skill at once — the audit trail and its exports, webhook deliveries (DESIGN.md "Skill
 * secrets" and "Integrations": a value never leaves). A secret sealed by another key is left out: its
 * value cannot be known here, and the worker masked it before the console stored anything.
 */
export async function allSecretValues(): Promise<string[]> {
  const rows = await db().secret.findMany({ select: { name: true, ciphertext: true, keyId: true } });
  if (rows.length === 0) return [];
  const key = secretKey();
  const values: string[] = [];
  for (const row of rows) {
    try {
      values.push(openSecret(key, row.name, row));
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
    }
  }
  return values;
}

/** A mask of every value allSecretValues opens (secretMasker: `•••`); the identity when there are none. */
export async function maskOfAllSecrets(): Promise<SecretMask> {
  return secretMasker(await allSecretValues());
}
