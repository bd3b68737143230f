/**
 * A skill secret as `GET /api/v1/secrets` serves it (DESIGN.md "Skill secrets"): never its value, only
 * its name, the skills it is given to, a fingerprint that tells values apart, who set it and when
 * (ISO-8601 times).
 */
export interface SecretInfo {
  name: string;
  /** False when another key sealed it (CONSOLE_SECRET_KEY or ./data/secret-key differs): calls needing it fail until it is set again here. */
  readable: boolean;
  skills: string[];
  fingerprint: string;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
}
