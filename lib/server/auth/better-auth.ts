import { prismaAdapter } from "better-auth/adapters/prisma";
import { betterAuth } from "better-auth";
import { db } from "../db";
import { config, MIN_PASSWORD_LENGTH } from "../env";
import { authSecret } from "./auth-secret";

/** Name prefix of the console's cookies (the session cookie is `skill-console.session_token`). */
export const COOKIE_PREFIX = "skill-console";

function createAuth() {
  const settings = config();
  return betterAuth({
    appName: "Skill console",
    baseURL: `http://${settings.host}:${settings.port}`,
    secret: authSecret(),
    database: prismaAdapter(db(), { provider: "sqlite" }),
    emailAndPassword: {
      enabled: true,
      // Admins create people (POST /api/v1/users); nobody signs themselves up.
      disableSignUp: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: 256,
    },
    user: {
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "viewer", input: false },
      },
    },
    session: {
      expiresIn: settings.sessionTtlSeconds,
      updateAge: Math.min(3600, Math.floor(settings.sessionTtlSeconds / 2)),
      // Every request reads its session from the database, so a revoked session or a changed role
      // takes effect on the next request (no signed cookie cache).
      cookieCache: { enabled: false },
    },
    // The console counts failed sign-ins itself (per account and address, failures only).
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    advanced: {
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: settings.secureCookies,
      defaultCookieAttributes: { sameSite: "lax", httpOnly: true },
      ipAddress: { ipAddressHeaders: ["x-skill-console-peer"] },
    },
  });
}

/** The Better Auth instance type. */
export type ConsoleAuth = ReturnType<typeof createAuth>;

const AUTH_KEY = Symbol.for("skill-console.auth");
const holder = globalThis as unknown as { [AUTH_KEY]?: { auth: ConsoleAuth; url: string } };

/**
 * The one Better Auth instance of the process (issue 4, point 1: revocable database sessions, scrypt
 * password hashes), on the console's Prisma client. Rebuilt when the database changes (tests).
 * Only lib/server/auth uses it; everything else asks identify() or the users/tokens modules.
 */
export function consoleAuth(): ConsoleAuth {
  const url = config().databaseUrl;
  const current = holder[AUTH_KEY];
  if (current && current.url === url) return current.auth;
  const auth = createAuth();
  holder[AUTH_KEY] = { auth, url };
  return auth;
}
