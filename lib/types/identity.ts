/** The roles of people, from least to most trusted; each includes the ones before it (DESIGN.md "Policy"). */
export const ROLES = ["viewer", "operator", "approver", "admin"] as const;

/** A person's role. */
export type Role = (typeof ROLES)[number];

/** True when `value` names a role. */
export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** True when `role` includes `minimum` (roles are cumulative: an admin is also an approver, and so on). */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

/**
 * Who is behind a request (GET /api/v1/auth/session): a person signed in with a session cookie, or an
 * agent sending an API token. An agent acts as its token's persona with its owner's role capped at
 * operator (lib/server/auth/api-tokens.ts TOKEN_ROLE_CAP).
 */
export interface Identity {
  userId: string;
  email: string;
  name: string;
  role: Role;
  via: "session" | "token";
  /** The token of an agent's request; null for a person's session. */
  token: { id: string; name: string; persona: string } | null;
}

/** A person's account as the API shows it (never with credentials). Times are ISO-8601. */
export interface ConsoleUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: string;
}

/** An API token as listed (the secret itself is only in the answer that created it). Times are ISO-8601. */
export interface ApiTokenInfo {
  id: string;
  name: string;
  persona: string;
  owner: string;
  /** The token's first characters, to tell tokens apart. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
