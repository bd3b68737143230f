import "server-only";
import { db } from "../db";
import { openSecret, SecretUnreadableError } from "./secret-box";
import { secretKey } from "./secret-key";
import { secretMasker, type SecretMask } from "./secret-masking";

/**
 * A mask of every secret's value the console holds (secretMasker over all of them; DESIGN.md "Skill
 * secrets": a value is masked `•••` wherever it appears in an export), for what the console writes out
 * about every skill at once — the audit trail and its exports. A secret this console's key cannot open
 * (sealed by another key) is left out: its value cannot be known here, and the worker masked it before
 * the console stored anything. Returns the identity when there are no secrets.
 */
export async function maskOfAllSecrets(): Promise<SecretMask> {
  const rows = await db().secret.findMany({ select: { name: true, ciphertext: true, keyId: true } });
  if (rows.length === 0) return (text) => text;
  const key = secretKey();
  const values: string[] = [];
  for (const row of rows) {
    try {
      values.push(openSecret(key, row.name, row));
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
    }
  }
  return secretMasker(values);
}
