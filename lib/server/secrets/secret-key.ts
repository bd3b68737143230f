import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { config, parseSecretKey } from "../env";

/** File under the data folder holding the generated key when CONSOLE_SECRET_KEY is unset. */
export const GENERATED_SECRET_KEY_FILE = "secret-key";

/**
 * The 32-byte key that seals skill secrets (DESIGN.md "Skill secrets": AES-256-GCM, key in
 * `./data/secret-key` or CONSOLE_SECRET_KEY): CONSOLE_SECRET_KEY when set; otherwise the one kept in
 * `./data/secret-key`, generated (32 random bytes, base64, file mode 0600) on first use. Two consoles
 * sharing the folder read the same file: whoever creates it first wins (`wx`), the other reads it.
 * Throws ConfigError when the file holds no 32-byte key (a truncated copy is never replaced: the secrets
 * sealed with the old key would be lost).
 */
export function secretKey(): Buffer {
  const settings = config();
  if (settings.secretKey) return settings.secretKey;
  const file = path.join(settings.dataDir, GENERATED_SECRET_KEY_FILE);
  fs.mkdirSync(settings.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
    console.log(`secrets: generated the key that seals skill secrets in ${file}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return parseSecretKey(fs.readFileSync(file, "utf8"), file);
}
