/**
 * A skill secret as `GET /api/v1/secrets` serves it (DESIGN.md "Skill secrets"): never its value, only
 * its name, the skills it is given to, a fingerprint that tells values apart, who set it and when
 * (ISO-8601 times).
 */
export interface SecretInfo {
  name: string;
  skills: string[];
  fingerprint: string;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
}
