import { randomBytes } from "node:crypto";
import type { User as UserRow } from "@prisma/client";
import { isRole, roleAtLeast, type ConsoleUser, type Role } from "@/lib/types/identity";
import { db } from "../db";
import { AppError } from "../errors";
import { config, MIN_PASSWORD_LENGTH } from "../env";
import { recordAudit } from "../audit/audit-trail";
import { SIGNING_ROLES } from "../approvals/signature-rules";
import { consoleAuth } from "./better-auth";
import { modelTransaction } from "../db-transactions";
import { approvalsChanged } from "../approvals/approval-feed";
import { accessChanged } from "./access-changes";

/** Better Auth's provider id for email + password credentials. */
const CREDENTIAL_PROVIDER = "credential";

/** The API shape of a user row. */
export function toConsoleUser(row: UserRow): ConsoleUser {
  return { id: row.id, email: row.email, name: row.name, role: isRole(row.role) ? row.role : "viewer", createdAt: row.createdAt.toISOString() };
}

/** Lower-cased, trimmed email; throws AppError `bad_request` unless it looks like `local@domain.tld`. */
export function normaliseEmail(raw: unknown): string {
  if (typeof raw !== "string") throw new AppError("bad_request", "email must be a string");
  const email = raw.trim().toLowerCase();
  // Better Auth refuses addresses without a dotted domain (DESIGN.md machine facts); say so up front.
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw new AppError("bad_request", `email ${JSON.stringify(raw)} is not an address like name@example.org`);
  }
  return email;
}

function checkPassword(password: unknown): string {
  if (typeof password !== "string") throw new AppError("bad_request", "password must be a string");
  if (password.length < MIN_PASSWORD_LENGTH) throw new AppError("bad_request", `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > 256) throw new AppError("bad_request", "password must be at most 256 characters");
  return password;
}

/**
 * Creates a person who can sign in (`POST /api/v1/users`, admin only; sign-up is disabled): email
 * (normalised), password (12–256 characters, hashed by Better Auth), role. `actor` is recorded in the
 * audit trail. Returns the user; throws AppError `bad_request` for a bad field, `conflict` (409) when
 * the email is taken.
 */
export async function createUser(input: { email: unknown; password: unknown; role: unknown; name?: unknown }, actor: { email: string; userId: string | null }): Promise<ConsoleUser> {
  const email = normaliseEmail(input.email);
  const password = checkPassword(input.password);
  if (!isRole(input.role)) throw new AppError("bad_request", `role must be one of viewer, operator, approver, admin`);
  const name = typeof input.name === "string" && input.name.trim() !== "" ? input.name.trim().slice(0, 100) : email.split("@")[0]!;
  if (await db().user.findUnique({ where: { email } })) throw new AppError("conflict", `a user with email ${email} already exists`);
  const context = await consoleAuth().$context;
  const hash = await context.password.hash(password);
  let user;
  try {
    user = await context.internalAdapter.createUser({ email, name, role: input.role, emailVerified: true }, { method: "admin" });
  } catch (error) {
    if (await db().user.findUnique({ where: { email } })) throw new AppError("conflict", `a user with email ${email} already exists`);
    throw error;
  }
  await context.internalAdapter.linkAccount({ userId: user.id, providerId: CREDENTIAL_PROVIDER, accountId: user.id, password: hash });
  await recordAudit({ action: "user.created", actor: actor.email, actorId: actor.userId, details: { email, role: input.role } });
  return toConsoleUser(await db().user.findUniqueOrThrow({ where: { id: user.id } }));
}

/** Every user, oldest first (`GET /api/v1/users`, admin only). */
export async function listUsers(): Promise<ConsoleUser[]> {
  return (await db().user.findMany({ orderBy: { createdAt: "asc" } })).map(toConsoleUser);
}

/**
 * Changes a person's role (`PATCH /api/v1/users/{id}`, admin only). Takes effect on their next
 * request (sessions read the role from the database) and at once on their open event streams. A demotion below approver voids, in the same
 * transaction and for good, their signatures on pending approvals (issue 10 point 4: a signature counts
 * only while its signer held approver+ continuously since signing; a re-promotion does not bring them
 * back), with an `approval.signatures_voided` audit entry. Refuses (409) to demote the last admin.
 * Returns the updated user; throws `not_found`, `bad_request`, `conflict`.
 */
export async function setUserRole(userId: string, role: unknown, actor: { email: string; userId: string | null }): Promise<ConsoleUser> {
  if (!isRole(role)) throw new AppError("bad_request", "role must be one of viewer, operator, approver, admin");
  const user = await db().user.findUnique({ where: { id: userId } });
  if (!user) throw new AppError("not_found", `no user with id ${JSON.stringify(userId)}`);
  // The write comes first and the count after it, in one transaction: on SQLite the write takes the
  // database's write lock, so two admins demoting each other at once (in one console or two) are
  // serialised and the second sees the first's demotion — a count read before writing would let both pass.
  let signaturesVoided = false;
  const updated = await modelTransaction(async (tx) => {
    signaturesVoided = false;
    const changed = await tx.user.update({ where: { id: userId }, data: { role } });
    // Counted whatever role was read before the transaction: that read may be stale (a promotion to
    // admin committed meanwhile), and a demotion that skipped the count left no admin.
    if (role !== "admin" && (await tx.user.count({ where: { role: "admin" } })) < 1) {
      throw new AppError("conflict", "the last admin cannot be demoted; make another admin first");
    }
    if (!SIGNING_ROLES.includes(role)) {
      const reason = `${user.email} was demoted from ${user.role} to ${role}`;
      const pending = await tx.approvalSignature.findMany({ where: { userId, voidedAt: null, approval: { status: "pending" } }, select: { id: true, approvalId: true } });
      if (pending.length > 0) {
        await tx.approvalSignature.updateMany({ where: { id: { in: pending.map((signature) => signature.id) } }, data: { voidedAt: new Date(), voidReason: reason } });
        await recordAudit({ action: "approval.signatures_voided", actor: actor.email, actorId: actor.userId, details: { email: user.email, reason, approvals: pending.map((signature) => signature.approvalId) } }, tx);
        signaturesVoided = true;
      }
    }
    return changed;
  });
  if (signaturesVoided) approvalsChanged();
  // Their open event streams are checked against the new role now.
  accessChanged(userId);
  await recordAudit({ action: "user.role_changed", actor: actor.email, actorId: actor.userId, details: { email: user.email, from: user.role, to: role } });
  return toConsoleUser(updated);
}

/**
 * Creates the first admin when the database has no user (issue 4, point 1): CONSOLE_ADMIN_EMAIL /
 * CONSOLE_ADMIN_PASSWORD, or `admin@console.local` with a random password printed once to the console
 * output. Returns the printed password (null when it came from the environment or a user existed).
 * Safe against two consoles starting at once: the loser of the unique email sees the conflict and
 * skips.
 */
export async function ensureFirstAdmin(log: (line: string) => void = console.log): Promise<string | null> {
  if ((await db().user.count()) > 0) return null;
  const settings = config();
  const generated = settings.adminPassword === null ? randomBytes(18).toString("base64url") : null;
  try {
    await createUser({ email: settings.adminEmail, password: settings.adminPassword ?? generated, role: "admin", name: "Admin" }, { email: "system", userId: null });
  } catch (error) {
    if (error instanceof AppError && error.code === "conflict") return null;
    throw error;
  }
  if (generated) {
    log(
      [
        "",
        "auth: ───────────────────────────────────────────────────────────────",
        `auth: first start: created the admin ${settings.adminEmail}`,
        `auth: password: ${generated}`,
        "auth: (shown once; set CONSOLE_ADMIN_EMAIL / CONSOLE_ADMIN_PASSWORD to choose them)",
        "auth: ───────────────────────────────────────────────────────────────",
        "",
      ].join("\n"),
    );
  } else {
    log(`auth: first start: created the admin ${settings.adminEmail} (password from CONSOLE_ADMIN_PASSWORD)`);
  }
  return generated;
}

/** Statements of an open transaction (Prisma's interactive one). */
type RoleReader = { user: { findUnique(args: { where: { id: string }; select: { role: true } }): Promise<{ role: string } | null> } };

/**
 * Whether the person `userId` holds `minimum` or above now, read inside the transaction `tx` that
 * makes the change they asked for (after its first write, so under the database's write lock): the
 * role a request was identified with can be demoted before its change is written (issue 10 point 4:
 * a signature — and a confirmation or denial — counts only while its maker holds the role). False for
 * a person who no longer exists.
 */
export async function holdsRoleNow(tx: RoleReader, userId: string, minimum: Role): Promise<boolean> {
  const row = await tx.user.findUnique({ where: { id: userId }, select: { role: true } });
  return row !== null && isRole(row.role) && roleAtLeast(row.role, minimum);
}
