import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { config, MIN_AUTH_SECRET_LENGTH } from "../env";

/** File under the data folder holding the generated secret when CONSOLE_AUTH_SECRET is unset. */
export const GENERATED_SECRET_FILE = "auth-secret";

/**
 * The secret that signs session cookies (issue 4, point 1): CONSOLE_AUTH_SECRET when set; otherwise
 * the one kept in `./data/auth-secret`, generated (48 random bytes, base64url, file mode 0600) on first
 * start. Two consoles sharing the folder read the same file: whoever creates it first wins (`wx`), the
 * other reads it. Throws when the file exists but holds too short a secret (a truncated copy).
 */
export function authSecret(): string {
  const settings = config();
  if (settings.authSecret) return settings.authSecret;
  const file = path.join(settings.dataDir, GENERATED_SECRET_FILE);
  fs.mkdirSync(settings.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, `${randomBytes(48).toString("base64url")}\n`, { flag: "wx", mode: 0o600 });
    console.log(`auth: generated a session secret in ${file}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const secret = fs.readFileSync(file, "utf8").trim();
  if (secret.length < MIN_AUTH_SECRET_LENGTH) {
    throw new Error(`${file} holds a secret shorter than ${MIN_AUTH_SECRET_LENGTH} characters; remove it to generate a new one`);
  }
  return secret;
}
