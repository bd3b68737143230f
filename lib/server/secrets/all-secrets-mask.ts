import "server-only";
import { statements, type SqlRunner } from "../db-statements";
import { openSecret, SecretUnreadableError } from "./secret-box";
import { secretKey } from "./secret-key";
import { secretMasker, type SecretMask } from "./secret-masking";

/** The values of every secret and their mask, for one version of the Secret table. */
interface AllSecrets {
  /** Each secret's name, key id and fingerprint (which changes with its value): tells versions apart. */
  version: string;
  values: string[];
  mask: SecretMask;
}

/** The last AllSecrets built, on globalThis (one per process, shared by the route bundles). */
const CACHE_KEY = Symbol.for("skill-console.all-secrets");
const store = globalThis as unknown as { [CACHE_KEY]?: AllSecrets };

/**
 * The value of every secret the console holds that this console's key opens, and a mask of them all
 * (secretMasker: `•••`), for what it writes out about every skill at once — the audit trail and its
 * exports, webhook deliveries (DESIGN.md "Skill secrets" and "Integrations": a value never leaves). A
 * secret sealed by another key is left out: its value cannot be known here, and the worker masked it
 * before the console stored anything. Reads the table through `runner` (a transaction's, to mask what
 * it writes; default statements()) every time, but opens the values and builds the mask (hundreds of
 * patterns for a few PEM keys) only when a secret was set, changed or deleted since the last call.
 */
export async function allSecrets(runner: Pick<SqlRunner, "$queryRaw"> = statements()): Promise<{ values: readonly string[]; mask: SecretMask }> {
  const rows = await runner.$queryRaw<Array<{ name: string; ciphertext: string; keyId: string; fingerprint: string }>>`SELECT "name", "ciphertext", "keyId", "fingerprint" FROM "Secret" ORDER BY "name"`;
  const version = rows.map((row) => `${row.name}\u0000${row.keyId}\u0000${row.fingerprint}`).join("\n");
  const cached = store[CACHE_KEY];
  if (cached && cached.version === version) return cached;
  const values: string[] = [];
  if (rows.length > 0) {
    const key = secretKey();
    for (const row of rows) {
      try {
        values.push(openSecret(key, row.name, row));
      } catch (error) {
        if (!(error instanceof SecretUnreadableError)) throw error;
      }
    }
  }
  const built: AllSecrets = { version, values, mask: secretMasker(values) };
  store[CACHE_KEY] = built;
  return built;
}

/** A mask of every value allSecrets opens; the identity when there are none. */
export async function maskOfAllSecrets(): Promise<SecretMask> {
  return (await allSecrets()).mask;
}
