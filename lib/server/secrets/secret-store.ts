import type { Prisma, Secret as SecretRow } from "@prisma/client";
import { skillsVoidedBySecretChange } from "@/lib/policy/secret-change";
import type { Identity } from "@/lib/types/identity";
import type { SecretInfo } from "@/lib/types/secret";
import { SECRET_NAME_PATTERN, SECRET_VALUE_MAX_BYTES, SECRET_VALUE_MIN_LENGTH } from "@/lib/validation/secret-requests";
import { approvalsChanged } from "../approvals/approval-feed";
import { voidPendingApprovalsOfSkills } from "../approvals/void-approval";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { statements } from "../db-statements";
import { modelTransaction } from "../db-transactions";
import { AppError } from "../errors";
import { announce } from "../replica-bus";
import { folderOfSkill } from "../skills/registered-skill";
import { keyIdOf, openSecret, sealSecret } from "./secret-box";
import { secretKey } from "./secret-key";
import { secretNameRefusal } from "./secret-names";


/** What an admin asks to store (`POST /api/v1/secrets`). */
export interface NewSecret {
  name: string;
  value: string;
  skills: string[];
}

/** What an admin asks to change (`PUT /api/v1/secrets/{name}`): at least one of the two. */
export interface SecretChange {
  value?: string;
  skills?: string[];
}

/** Maps a row to the listed shape: never the value, nor its ciphertext. `keyId` is this console's key's (keyIdOf). */
function toSecretInfo(row: SecretRow, keyId: string): SecretInfo {
  return {
    name: row.name,
    readable: row.keyId === keyId,
    skills: parseSkills(row.skills),
    fingerprint: row.fingerprint,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedBy: row.updatedBy,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Parses a JSON skillFolders column (skill → folder); anything unexpected reads as none (the secret then reaches no skill). */
function parseFolders(text: string): Record<string, string> {
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  } catch {
    return {};
  }
}

/** The skills a row gives its secret to, in the folder it was given to each in: only there does it apply. */
function grantsOf(row: { skills: string; skillFolders: string }): Array<{ skill: string; folder: string | null }> {
  const folders = parseFolders(row.skillFolders);
  return parseSkills(row.skills).map((skill) => ({ skill, folder: Object.prototype.hasOwnProperty.call(folders, skill) ? folders[skill]! : null }));
}

/**
 * Each of `skills` → the real path of its folder, as the registry lists it now: a secret is given to
 * that skill, there (another skill that later takes the name, from another root, is not given it).
 * Throws AppError bad_request naming the skills the console does not list (deny when in doubt: a
 * secret given to a name no skill has yet would go to whichever skill takes it first).
 */
async function foldersOfSkills(skills: readonly string[]): Promise<Record<string, string>> {
  if (skills.length === 0) return {};
  const { getRegistry } = await import("../skills/registry");
  const registry = await getRegistry();
  const folders: Record<string, string> = {};
  const unknown: string[] = [];
  for (const name of skills) {
    const skill = registry.get(name);
    if (skill) folders[name] = folderOfSkill(skill);
    else unknown.push(name);
  }
  if (unknown.length > 0) {
    const names = unknown.slice(0, 10).map((name) => JSON.stringify(name.slice(0, 210))).join(", ");
    throw new AppError("bad_request", `no skill named ${names}${unknown.length > 10 ? ` (and ${unknown.length - 10} more)` : ""} is loaded: a secret is given only to skills the console lists, each in the folder it has now`);
  }
  return folders;
}

/** Parses a JSON skills column; anything unexpected reads as no skills (the secret then reaches none). */
function parseSkills(text: string): string[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  } catch {
    return [];
  }
}

/** Throws AppError bad_request when `name` is not a name a secret may have. */
function checkName(name: string): void {
  if (!new RegExp(SECRET_NAME_PATTERN).test(name)) {
    throw new AppError("bad_request", `a secret's name is an environment variable's name: letters, digits and _, not starting with a digit, at most 128 characters (got ${JSON.stringify(name.slice(0, 140))})`);
  }
  const refusal = secretNameRefusal(name);
  if (refusal !== null) throw new AppError("bad_request", refusal);
}

/** Throws AppError bad_request, never quoting the value, when `value` cannot be a secret's value. */
function checkValue(name: string, value: string): void {
  if (value.length < SECRET_VALUE_MIN_LENGTH) throw new AppError("bad_request", `the value of ${name} is shorter than ${SECRET_VALUE_MIN_LENGTH} characters: too short to be masked in what skills print, and easy to guess`);
  if (Buffer.byteLength(value, "utf8") > SECRET_VALUE_MAX_BYTES) throw new AppError("too_large", `the value of ${name} is larger than ${SECRET_VALUE_MAX_BYTES} bytes`);
  if (value.includes("\0")) throw new AppError("bad_request", `the value of ${name} holds a NUL character, which no environment variable can`);
  if (value.trim() !== value) throw new AppError("bad_request", `the value of ${name} begins or ends with whitespace (a pasted newline or space?): a skill that trims it would print the value unmasked`);
}

/** The skills as stored: trimmed, without control characters, unique, sorted. Throws AppError bad_request otherwise. */
function normalisedSkills(skills: readonly string[]): string[] {
  const kept = new Set<string>();
  for (const skill of skills) {
    const name = skill.trim();
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    if (name === "" || /[\u0000-\u001f\u007f]/.test(name)) throw new AppError("bad_request", `${JSON.stringify(skill.slice(0, 210))} is not a skill name`);
    kept.add(name);
  }
  return [...kept].sort();
}

/** Every secret, by name (`GET /api/v1/secrets`, admin): names, skills, fingerprints, who and when; never a value. */
export async function listSecrets(): Promise<SecretInfo[]> {
  const rows = await db().secret.findMany({ orderBy: { name: "asc" } });
  const keyId = keyIdOf(secretKey());
  return rows.map((row) => toSecretInfo(row, keyId));
}

/** Tells this replica's registry and the others' that the secrets changed (availability of the skills that need them). */
async function secretsChanged(): Promise<void> {
  announce({ kind: "secrets" });
  const { refreshSecretGrants } = await import("../skills/registry");
  await refreshSecretGrants();
}

/** The reason pending approvals of a secret's skills are voided with. */
function voidReason(name: string, what: "set" | "changed" | "deleted"): string {
  return `secret ${name} was ${what} after the call was requested: what the approvers were shown is no longer what would run`;
}

/**
 * Stores a new secret (`POST /api/v1/secrets`, admin; DESIGN.md "Skill secrets"): the value sealed with
 * AES-256-GCM under the console's key, given to `skills`. Pending approvals of those skills are voided
 * in the same transaction; writes `secret.created` (name, skills, fingerprint — never the value).
 * Returns the SecretInfo. Throws AppError bad_request / too_large for a bad name, value or skill, and
 * conflict (409) when a secret of that name exists.
 */
export async function createSecret(actor: Pick<Identity, "email" | "userId">, input: NewSecret): Promise<SecretInfo> {
  checkName(input.name);
  checkValue(input.name, input.value);
  const skills = normalisedSkills(input.skills);
  const folders = await foldersOfSkills(skills);
  const sealed = sealSecret(secretKey(), input.name, input.value);
  const { row, voided } = await modelTransaction(async (tx) => {
    const existing = await tx.secret.findUnique({ where: { name: input.name }, select: { name: true } });
    if (existing) throw new AppError("conflict", `a secret named ${input.name} exists: change it with PUT /api/v1/secrets/${input.name}`);
    const now = new Date();
    const row = await tx.secret.create({ data: { name: input.name, ...sealed, skills: JSON.stringify(skills), skillFolders: JSON.stringify(folders), createdBy: actor.email, updatedBy: actor.email, createdAt: now, updatedAt: now } });
    const voided = await voidPendingApprovalsOfSkills(tx, skills, voidReason(input.name, "set"));
    await recordAudit({ action: "secret.created", actor: actor.email, actorId: actor.userId, details: { name: input.name, skills, fingerprint: sealed.fingerprint, voidedApprovals: voided } }, tx);
    return { row, voided };
  });
  if (voided.length > 0) approvalsChanged();
  await secretsChanged();
  return toSecretInfo(row, keyIdOf(secretKey()));
}

/**
 * Changes a secret's value, its skills, or both (`PUT /api/v1/secrets/{name}`, admin). Pending
 * approvals of the skills whose secret changed are voided in the same transaction: every skill named
 * before or after when the value changed, else those that gained or lost it. Writes `secret.updated`
 * (what changed, skills, old and new fingerprint). Returns the SecretInfo. Throws AppError not_found,
 * bad_request or too_large.
 */
export async function updateSecret(actor: Pick<Identity, "email" | "userId">, name: string, change: SecretChange): Promise<SecretInfo> {
  if (change.value !== undefined) checkValue(name, change.value);
  const skills = change.skills === undefined ? undefined : normalisedSkills(change.skills);
  // Naming the skills again gives it to each in the folder it has now.
  const folders = skills === undefined ? undefined : await foldersOfSkills(skills);
  const sealed = change.value === undefined ? undefined : sealSecret(secretKey(), name, change.value);
  const { row, voided } = await modelTransaction(async (tx) => {
    const before = await tx.secret.findUnique({ where: { name } });
    if (!before) throw new AppError("not_found", `no secret named ${JSON.stringify(name.slice(0, 140))}`);
    const oldSkills = parseSkills(before.skills);
    const newSkills = skills ?? oldSkills;
    const valueChanged = sealed !== undefined && sealed.fingerprint !== before.fingerprint;
    const affected = skillsVoidedBySecretChange(oldSkills, newSkills, valueChanged);
    const row = await tx.secret.update({ where: { name }, data: { ...(sealed ?? {}), skills: JSON.stringify(newSkills), ...(folders ? { skillFolders: JSON.stringify(folders) } : {}), updatedBy: actor.email, updatedAt: new Date() } });
    const voided = await voidPendingApprovalsOfSkills(tx, affected, voidReason(name, "changed"));
    const changed = [...(sealed !== undefined ? ["value"] : []), ...(skills !== undefined ? ["skills"] : [])];
    await recordAudit(
      { action: "secret.updated", actor: actor.email, actorId: actor.userId, details: { name, changed, skills: newSkills, previousSkills: oldSkills, fingerprint: row.fingerprint, previousFingerprint: before.fingerprint, voidedApprovals: voided } },
      tx,
    );
    return { row, voided };
  });
  if (voided.length > 0) approvalsChanged();
  await secretsChanged();
  return toSecretInfo(row, keyIdOf(secretKey()));
}

/**
 * Deletes a secret (`DELETE /api/v1/secrets/{name}`, admin): its skills no longer receive it (a skill
 * that needs it becomes unavailable), and their pending approvals are voided in the same transaction.
 * Writes `secret.deleted`. Returns the SecretInfo as it was. Throws AppError not_found.
 */
export async function deleteSecret(actor: Pick<Identity, "email" | "userId">, name: string): Promise<SecretInfo> {
  const { row, voided } = await modelTransaction(async (tx) => {
    const row = await tx.secret.findUnique({ where: { name } });
    if (!row) throw new AppError("not_found", `no secret named ${JSON.stringify(name.slice(0, 140))}`);
    const skills = parseSkills(row.skills);
    await tx.secret.delete({ where: { name } });
    const voided = await voidPendingApprovalsOfSkills(tx, skills, voidReason(name, "deleted"));
    await recordAudit({ action: "secret.deleted", actor: actor.email, actorId: actor.userId, details: { name, skills, fingerprint: row.fingerprint, voidedApprovals: voided } }, tx);
    return { row, voided };
  });
  if (voided.length > 0) approvalsChanged();
  await secretsChanged();
  return toSecretInfo(row, keyIdOf(secretKey()));
}

/** One secret given to a skill: its name, and the folder of the skill it was given to (null: none recorded, given to no folder). */
export interface SecretGrant {
  secret: string;
  folder: string | null;
}

/**
 * Which secrets each skill name is given, in which folder: skill name → grants, by secret name. Read by
 * the registry (a skill that needs a secret is available only once it is given it, where it lives).
 */
export type SecretGrants = ReadonlyMap<string, readonly SecretGrant[]>;

/** Reads the SecretGrants from the database (names, skills and folders only; no value is opened). */
export async function loadSecretGrants(): Promise<SecretGrants> {
  const rows = await db().secret.findMany({ select: { name: true, skills: true, skillFolders: true }, orderBy: { name: "asc" } });
  const grants = new Map<string, SecretGrant[]>();
  for (const row of rows) {
    for (const { skill, folder } of grantsOf(row)) {
      const given = grants.get(skill) ?? [];
      given.push({ secret: row.name, folder });
      grants.set(skill, given);
    }
  }
  return grants;
}

/**
 * The values of the secrets given to `skill` in `folder` (its folder as the registry lists it; null
 * when it is not loaded), name → value, and their fingerprints, opened with the console's key: what the
 * worker that claimed one of its calls injects into the call's process (DESIGN.md "Skill secrets").
 * Throws SecretUnreadableError (secret-box.ts) when one cannot be opened.
 */
export async function secretValuesFor(skill: string, folder: string | null): Promise<{ values: Record<string, string>; fingerprints: Record<string, string> }> {
  // Raw SQL: every claim reads this (a model query cost ~1 ms of the console's CPU, 7% of its share of a call).
  const rows = await statements().$queryRaw<Array<Pick<SecretRow, "name" | "ciphertext" | "keyId" | "fingerprint" | "skills" | "skillFolders">>>`
    SELECT "name", "ciphertext", "keyId", "fingerprint", "skills", "skillFolders" FROM "Secret" ORDER BY "name"`;
  const given = rows.filter((row) => isGivenTo(row, skill, folder));
  if (given.length === 0) return { values: {}, fingerprints: {} };
  const key = secretKey();
  return {
    values: Object.fromEntries(given.map((row) => [row.name, openSecret(key, row.name, row)])),
    fingerprints: Object.fromEntries(given.map((row) => [row.name, row.fingerprint])),
  };
}

/**
 * The secrets given to `skill` in `folder` as name → fingerprint (names in order; no value is opened), read
 * through `client` (a transaction's, so a dual-sign call is bound to what was given when it was stored).
 */
export async function secretFingerprintsOf(skill: string, folder: string | null, client: Pick<Prisma.TransactionClient, "secret"> = db()): Promise<Record<string, string>> {
  const rows = await client.secret.findMany({ select: { name: true, fingerprint: true, skills: true, skillFolders: true }, orderBy: { name: "asc" } });
  return Object.fromEntries(rows.filter((row) => isGivenTo(row, skill, folder)).map((row) => [row.name, row.fingerprint]));
}

/** Whether a secret's row gives it to `skill` living in `folder` (null: the skill is not loaded; nothing is given). */
function isGivenTo(row: { skills: string; skillFolders: string }, skill: string, folder: string | null): boolean {
  return folder !== null && grantsOf(row).some((grant) => grant.skill === skill && grant.folder === folder);
}

/**
 * Logs, at start-up, the secrets this console's key cannot open (sealed under another CONSOLE_SECRET_KEY
 * or ./data/secret-key: a replica started with its own key, a data folder restored without its key):
 * calls that need them fail naming them until they are set again. Never throws (a database error is logged).
 */
export async function warnAboutUnreadableSecrets(): Promise<void> {
  try {
    const keyId = keyIdOf(secretKey());
    const unreadable = await db().secret.findMany({ where: { keyId: { not: keyId } }, select: { name: true, keyId: true } });
    if (unreadable.length === 0) return;
    console.warn(
      `secrets: ${unreadable.length} secret(s) were sealed with another key than this console's (${keyId}): ${unreadable.map((row) => `${row.name} (${row.keyId})`).join(", ")}; give every replica the same CONSOLE_SECRET_KEY, or set them again`,
    );
  } catch (error) {
    console.error(`secrets: could not check the secrets' keys: ${(error as Error).message}`);
  }
}

/**
 * Reads a secrets route's body with `read` (parseRequestBody), never quoting it back: JSON.parse's
 * message quotes the text around the error, which may be the value. Throws AppError like `read`.
 */
export async function readSecretBody<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError && error.code === "bad_request" && error.message.startsWith("request body is not valid JSON")) {
      throw new AppError("bad_request", "request body is not valid JSON (the text around the error is not quoted back: it may hold a secret's value)");
    }
    throw error;
  }
}
