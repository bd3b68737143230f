import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { Pack as PackRow } from "@prisma/client";
import type { Identity } from "@/lib/types/identity";
import type { MarketplacePlugin, Pack, PackFileDiff, PackReview, PackSkill, PackSource } from "@/lib/types/pack";
import { approvalsChanged } from "../approvals/approval-feed";
import { requirePerson } from "../approvals/audit-actor";
import { voidPendingApprovalsOfSkills } from "../approvals/void-approval";
import { recordAudit } from "../audit/audit-trail";
import { db } from "../db";
import { modelTransaction } from "../db-transactions";
import { config } from "../env";
import { AppError } from "../errors";
import { folderOfSkill } from "../skills/registered-skill";
import { getRegistry } from "../skills/registry";
import { followChanges } from "../skills/watch-skills";
import { packFileDiffs } from "./pack-diff";
import { installedDifferences, installedPlaceOf } from "./pack-refusal";
import { realPackLayout } from "./pack-layout";
import { locatePack, marketplacePlugins } from "./pack-manifest";
import { compareSkills, reviewPackSkills, sharedFilesChanged, type ReviewedSkill } from "./pack-review";
import { changedPaths, checkPackSignature, digestListBody, packDigestOf, PACK_SIGNATURE_FILE, unsignedRefusal } from "./pack-signature";
import { readPackSource, type PackSourceRequest } from "./pack-sources";
import { checkPackEntries, PACK_ENTRY_LIMITS, packDigestList, PackError, PackTooLargeError, readFolderEntries, writePackEntries, type PackEntry, type PackLimits } from "./pack-tree";

/** The statuses a pack row is stored with (`modified` is worked out from the disk when it is read). */
type StoredStatus = "staged" | "awaiting_approval" | "enabled" | "disabled";

function limits(): PackLimits {
  return { maxBytes: config().packMaxBytes, ...PACK_ENTRY_LIMITS };
}

/** Pack operations run one at a time in this console: each reads the enabled version and swaps folders. */
let queue: Promise<unknown> = Promise.resolve();
function serialised<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

function staged(row: PackRow): ReviewedSkill[] {
  return (JSON.parse(row.skills) as PackSkill[]).filter((skill) => skill.change !== "removed").map(({ change: _change, ...skill }) => skill);
}

/** A version's digest list and skill folders (what sharedFilesChanged compares). */
function versionShape(row: PackRow): { digestList: string; folders: string[] } {
  return { digestList: row.digestList, folders: staged(row).map((skill) => skill.folder) };
}

/** Each skill of `row` against the version enabled now (`enabled`), shared files counted (compareSkills). */
function changesAgainst(row: PackRow, enabled: PackRow | null): PackSkill[] {
  return compareSkills(staged(row), enabled ? staged(enabled) : null, sharedFilesChanged(versionShape(row), enabled && versionShape(enabled)));
}

function sourceOf(row: PackRow): PackSource {
  return JSON.parse(row.source) as PackSource;
}

/** Folders no pack may be staged from: the console's data, install folder, packs folder, and the kernel's. */
function forbiddenFolders(): string[] {
  const settings = config();
  return [settings.dataDir, process.cwd(), settings.packsPath, "/proc", "/sys", "/dev", "/run"];
}

/** The folder of a stored version's pack: `versions/<id>/<name>`. */
function versionFolder(row: Pick<PackRow, "id" | "name">): string {
  return path.join(realPackLayout(config().packsPath).versions, row.id, row.name);
}

function installedFolder(name: string): string {
  return path.join(realPackLayout(config().packsPath).installed, name);
}

async function enabledRow(name: string): Promise<PackRow | null> {
  return db().pack.findFirst({ where: { name, status: "enabled" } });
}

/**
 * The files of an installed pack that differ from the version enabled (DESIGN.md "Skill packs": a pack
 * whose files change on disk after enabling shows as modified). Reads the installed folder (bounded);
 * a folder that is gone or unreadable counts as every file changed. Returns paths, sorted.
 */
async function modifiedFiles(row: PackRow): Promise<string[]> {
  const differences = await installedDifferences(installedFolder(row.name), digestListBody(row.digestList));
  return "unreadable" in differences ? ["(the installed folder cannot be read)"] : differences.changed;
}

/**
 * A stored row as the API serves it. Its skills' `change` says what enabling it does: for a version
 * that is not enabled, against the version enabled now (worked out afresh: the one enabled at staging
 * may be gone); for the enabled version, what enabling it did against the version before it (kept
 * when it was enabled). `comparedWith` names that version (null: none). `enabled` is the version
 * enabled now under this name, when the caller read it already (listPacks reads them all at once).
 */
async function toPack(row: PackRow, enabled?: PackRow | null): Promise<Pack> {
  const previous = row.previousId ? await db().pack.findUnique({ where: { id: row.previousId }, select: { id: true, version: true, digest: true } }) : null;
  const approval = row.status === "awaiting_approval" ? await db().packApproval.findFirst({ where: { packId: row.id, status: "pending" }, select: { id: true, requestedBy: true } }) : null;
  const modified = row.status === "enabled" ? await modifiedFiles(row) : [];
  let skills: PackSkill[];
  let comparedWith: Pack["comparedWith"];
  if (row.status === "enabled") {
    skills = JSON.parse(row.skills) as PackSkill[];
    comparedWith = previous && { id: previous.id, version: previous.version, enabledNow: false };
  } else {
    const now = enabled === undefined ? await enabledRow(row.name) : enabled;
    skills = changesAgainst(row, now);
    comparedWith = now && { id: now.id, version: now.version, enabledNow: true };
  }
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    description: row.description,
    status: modified.length > 0 ? "modified" : (row.status as StoredStatus),
    source: sourceOf(row),
    commit: row.commit,
    digest: row.digest,
    signedBy: row.signedBy,
    skills,
    comparedWith,
    previousVersion: previous,
    approvalId: approval?.id ?? null,
    approvalRequestedBy: approval?.requestedBy ?? null,
    stagedBy: row.stagedBy,
    stagedAt: row.createdAt.toISOString(),
    enabledAt: row.enabledAt?.toISOString() ?? null,
    modifiedFiles: modified,
  };
}

/**
 * Stages a pack (`POST /api/v1/packs`, admin; DESIGN.md "Skill packs"): reads the source (a folder, a
 * git repository at a ref, a `.tar.gz` upload), finds its pack.json (or the named marketplace plugin),
 * checks every entry (no escape, no link out, no device, bounded), checks its signature against
 * CONSOLE_PACK_TRUSTED_KEYS and refuses an unsigned one PACKS_ALLOW_UNSIGNED does not allow, stores
 * its files under `versions/<id>/<name>`, and reviews it as the loaders will load it: every skill's
 * kind, class, sandbox, secrets and digest, compared with the version enabled now. A skill name taken
 * by a skill outside this pack is refused. Nothing of it is callable until it is enabled. Returns the
 * Pack (`staged`); throws AppError `bad_request` (400) with the reason, leaving nothing behind.
 */
export async function stagePack(identity: Identity, request: PackSourceRequest): Promise<Pack> {
  requirePerson(identity, "stage packs");
  const settings = config();
  let content;
  try {
    content = await readPackSource(request, limits(), { paths: forbiddenFolders() });
  } catch (error) {
    throw refusal(error);
  }
  return serialised(async () => {
    const layout = realPackLayout(settings.packsPath);
    const id = randomUUID();
    const work = path.join(layout.work, id);
    let stored: PackRow;
    try {
      const located = locatePack(content.entries, request.plugin);
      const entries = checkPackEntries(located.entries, limits());
      const digestList = packDigestList(entries);
      const signature = signatureOf(entries, digestList, content.local);
      await fs.mkdir(work, { recursive: true, mode: 0o700 });
      await writePackEntries(path.join(work, located.manifest.name), entries);
      const reviewed = await reviewPackSkills(work, located.manifest.name, entries, settings);
      await refuseTakenNames(located.manifest.name, reviewed);
      const enabled = await enabledRow(located.manifest.name);
      const skills = compareSkills(reviewed, enabled ? staged(enabled) : null, sharedFilesChanged({ digestList, folders: reviewed.map((skill) => skill.folder) }, enabled && versionShape(enabled)));
      await fs.mkdir(layout.versions, { recursive: true, mode: 0o755 });
      await fs.rename(work, path.join(layout.versions, id));
      stored = await modelTransaction(async (tx) => {
        const created = await tx.pack.create({
          data: {
            id,
            name: located.manifest.name,
            version: located.manifest.version,
            description: located.manifest.description,
            status: "staged",
            source: JSON.stringify(content.source),
            commit: content.commit,
            digest: packDigestOf(digestList),
            digestList,
            signedBy: signature,
            skills: JSON.stringify(skills),
            stagedBy: identity.email,
            stagedById: identity.userId,
          },
        });
        await recordAudit(
          {
            action: "pack.staged",
            actor: identity.email,
            actorId: identity.userId,
            digest: created.digest,
            details: { pack: created.name, version: created.version, packId: id, source: content.source, commit: content.commit, signedBy: signature, skills: skills.map(({ name, change, class: skillClass }) => ({ name, change, class: skillClass })) },
          },
          tx,
        );
        return created;
      });
    } catch (error) {
      // Whichever it got to: the folder being written, or the stored version its row never named.
      await fs.rm(work, { recursive: true, force: true });
      await fs.rm(path.join(layout.versions, id), { recursive: true, force: true });
      throw refusal(error);
    }
    return toPack(stored);
  });
}

function refusal(error: unknown): unknown {
  if (error instanceof PackTooLargeError) return new AppError("too_large", `the pack cannot be staged: ${error.message}`);
  return error instanceof PackError ? new AppError("bad_request", `the pack cannot be staged: ${error.message}`) : error;
}

/**
 * The trusted key that signed the pack, or null when it is unsigned and unsigned packs from this kind
 * of source are allowed (PACKS_ALLOW_UNSIGNED: `local` allows local folders, uploads and local git
 * repositories). Throws PackError for a bad signature or a refused unsigned pack.
 */
function signatureOf(entries: readonly PackEntry[], digestList: string, local: boolean): string | null {
  const file = entries.find((entry) => entry.path === PACK_SIGNATURE_FILE);
  if (file && file.kind !== "file") throw new PackError(`${PACK_SIGNATURE_FILE} must be a regular file`);
  const check = checkPackSignature(file?.kind === "file" ? file.bytes : null, digestList, config().packTrustedKeys);
  if (check.status === "bad") throw new PackError(check.reason);
  if (check.status === "signed") return check.by;
  const refused = unsignedRefusal(config().packsAllowUnsigned, local);
  if (refused) throw new PackError(refused);
  return null;
}

/** Refuses a pack with a skill whose name a registered skill outside this pack's installed folder holds. */
async function refuseTakenNames(packName: string, skills: readonly ReviewedSkill[]): Promise<void> {
  const registry = await getRegistry();
  for (const skill of skills) {
    const holder = registry.get(skill.name);
    // Real paths, as the loaders hold them (PACKS_PATH may name its folder through a link).
    if (holder && installedPlaceOf(folderOfSkill(holder))?.packName !== packName) throw new PackError(`skill name ${skill.name} is taken by ${folderOfSkill(holder)}: a pack cannot replace a skill it did not install`);
  }
}

/**
 * The plugins a Claude Code marketplace at a folder or git ref offers as packs (`POST
 * /api/v1/packs/marketplace`): marketplacePlugins of its content. Throws AppError `bad_request` with
 * the reason.
 */
export async function listMarketplace(source: PackSourceRequest): Promise<MarketplacePlugin[]> {
  try {
    const content = await readPackSource(source, limits(), { paths: forbiddenFolders() });
    return marketplacePlugins(content.entries);
  } catch (error) {
    throw error instanceof PackError ? new AppError("bad_request", `the marketplace cannot be read: ${error.message}`) : error;
  }
}

/**
 * Marks pending pack approvals past their expiry `expired` (APPROVAL_TTL_SECONDS, as calls' approvals),
 * their packs back to `staged` so they may be asked for again. Run before packs are read.
 */
async function expireDuePackApprovals(): Promise<void> {
  const due = await db().packApproval.findMany({ where: { status: "pending", expiresAt: { lte: new Date() } }, take: 100 });
  for (const approval of due) {
    const row = await db().pack.findUnique({ where: { id: approval.packId } });
    if (row) await closeApproval(approval.id, row, "expired", "system", null, "the approval expired before a second admin signed");
  }
}

/**
 * Refuses to enable a version with a skill name another enabled pack lists, or a registered skill
 * outside this pack's installed folder holds (DESIGN.md "Skill packs": a pack never shadows or takes
 * over another's skill; checked again at enabling, as names taken since staging count). Throws
 * AppError `conflict` naming the holder.
 */
async function refuseTakenAtEnable(row: PackRow): Promise<void> {
  const names = new Set(staged(row).map((skill) => skill.name));
  const others = await db().pack.findMany({ where: { status: "enabled", NOT: { name: row.name } }, select: { name: true, version: true, skills: true } });
  for (const other of others) {
    const clash = staged({ skills: other.skills } as PackRow).find((skill) => names.has(skill.name));
    if (clash) throw new AppError("conflict", `skill name ${clash.name} is pack ${other.name} ${other.version}'s: a pack cannot take over another pack's skill`);
  }
  try {
    await refuseTakenNames(row.name, staged(row));
  } catch (error) {
    if (error instanceof PackError) throw new AppError("conflict", error.message);
    throw error;
  }
}

/** Every pack version, newest first, with its status as it is now (`modified` read from the disk). */
export async function listPacks(): Promise<Pack[]> {
  await expireDuePackApprovals();
  const rows = await db().pack.findMany({ orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: 1000 });
  const enabled = new Map(rows.filter((row) => row.status === "enabled").map((row) => [row.name, row]));
  return Promise.all(rows.map((row) => toPack(row, enabled.get(row.name) ?? null)));
}

async function rowOf(id: string): Promise<PackRow> {
  const row = await db().pack.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found", `no pack with id ${JSON.stringify(id)}`);
  return row;
}

/**
 * One pack version with its review (`GET /api/v1/packs/{id}`): the Pack, the diff of every file —
 * against the version enabled now (a version not enabled), the version before it (the enabled one), or
 * the enabled files as they are on disk now (a modified one), named in `filesAgainst` — and the digest
 * list (what a signature covers). Throws AppError `not_found`.
 */
export async function getPack(id: string): Promise<PackReview> {
  await expireDuePackApprovals();
  const row = await rowOf(id);
  const pack = await toPack(row);
  let files: PackFileDiff[];
  let filesAgainst: PackReview["filesAgainst"];
  if (pack.status === "modified") {
    // What changed on disk: the installed copy against the files that were enabled.
    files = await packFileDiffs(installedFolder(row.name), versionFolder(row), limits());
    filesAgainst = { kind: "disk", version: row.version };
  } else if (row.status === "enabled") {
    const previous = row.previousId ? await db().pack.findUnique({ where: { id: row.previousId } }) : null;
    files = await packFileDiffs(versionFolder(row), previous ? versionFolder(previous) : null, limits());
    filesAgainst = previous ? { kind: "previous", version: previous.version } : { kind: "none", version: null };
  } else {
    const enabled = await enabledRow(row.name);
    files = await packFileDiffs(versionFolder(row), enabled ? versionFolder(enabled) : null, limits());
    filesAgainst = enabled ? { kind: "enabled", version: enabled.version } : { kind: "none", version: null };
  }
  return { pack, files, filesAgainst, digestList: row.digestList };
}

/** Reads a stored version back and refuses it when its files are no longer what was staged (the digest list). */
async function storedEntries(row: PackRow): Promise<PackEntry[]> {
  let entries: PackEntry[];
  try {
    entries = checkPackEntries(await readFolderEntries(versionFolder(row), limits()), limits());
  } catch (error) {
    throw new AppError("conflict", `pack ${row.name} ${row.version} cannot be read back: ${(error as Error).message}`);
  }
  if (packDigestList(entries) !== row.digestList) throw new AppError("conflict", `the stored files of pack ${row.name} ${row.version} changed since it was staged: stage it again`);
  return entries;
}

/** Whether enabling `skills` (compared with the enabled version) adds or changes a dangerous skill, or changes one that was dangerous. */
function needsSecondAdmin(skills: readonly PackSkill[], enabled: readonly ReviewedSkill[] | null, packChanged: boolean): boolean {
  const before = new Map((enabled ?? []).map((skill) => [skill.name, skill]));
  if (skills.some((skill) => (skill.change === "added" || skill.change === "changed") && (skill.class === "dangerous" || before.get(skill.name)?.class === "dangerous"))) return true;
  // A dangerous skill may read any file of its pack (a sibling's helper) where no sandbox hides them:
  // any change of the pack changes what the dangerous skills it keeps may run.
  return packChanged && skills.some((skill) => skill.change !== "removed" && skill.class === "dangerous");
}

/** Whether any file of a version but pack.json differs from the version enabled now (none enabled: no). Pure. */
function packFilesChanged(row: PackRow, enabled: PackRow | null): boolean {
  return enabled !== null && changedPaths(enabled.digestList, row.digestList).some((changed) => changed !== "pack.json");
}

/**
 * The skills whose pending approvals enabling `row` voids: every skill it changes or removes and, when
 * any file of the pack but pack.json changes, every dangerous skill of the version enabled now (it may
 * read those files). Sorted.
 */
function voidedByEnabling(row: PackRow, skills: readonly PackSkill[], enabled: PackRow | null): string[] {
  const names = new Set(skills.filter((skill) => skill.change === "changed" || skill.change === "removed").map((skill) => skill.name));
  if (packFilesChanged(row, enabled)) for (const skill of enabled ? staged(enabled) : []) if (skill.class === "dangerous") names.add(skill.name);
  return [...names].sort();
}

/** What enabling answers: the pack, and the approval it waits for (202) or null (200). */
export interface EnableOutcome {
  pack: Pack;
  approvalId: string | null;
}

/**
 * Enables a staged (or earlier) version of a pack (`POST /api/v1/packs/{id}/enable`, admin, a person;
 * DESIGN.md "Skill packs"). Compared with the version enabled now, a version that adds or changes a
 * dangerous skill waits for a second admin (`awaiting_approval` and a PackApproval; the requester
 * cannot sign it); any other is installed at once (installVersion). Throws AppError `not_found`, or
 * `conflict` when the version is enabled already, waits for an approval, or its stored files changed.
 */
export async function enablePack(identity: Identity, id: string, action: "enable" | "rollback" = "enable"): Promise<EnableOutcome> {
  requirePerson(identity, "enable packs");
  return serialised(async () => {
    const row = await rowOf(id);
    if (row.status === "enabled") throw new AppError("conflict", `pack ${row.name} ${row.version} is enabled already`);
    if (row.status === "awaiting_approval") throw new AppError("conflict", `pack ${row.name} ${row.version} already waits for a second admin's signature`);
    await storedEntries(row);
    await refuseTakenAtEnable(row);
    const enabled = await enabledRow(row.name);
    const skills = changesAgainst(row, enabled);
    if (needsSecondAdmin(skills, enabled ? staged(enabled) : null, packFilesChanged(row, enabled))) {
      const approvalId = randomUUID();
      const dangerous = skills.filter((skill) => skill.change !== "same" && skill.change !== "removed" && skill.class === "dangerous").map((skill) => skill.name);
      await modelTransaction(async (tx) => {
        const moved = await tx.pack.updateMany({ where: { id, status: row.status }, data: { status: "awaiting_approval", skills: JSON.stringify(skills) } });
        if (moved.count !== 1) throw new AppError("conflict", `pack ${row.name} ${row.version} changed while it was being enabled; try again`);
        await tx.packApproval.create({
          data: { id: approvalId, packId: id, status: "pending", digest: row.digest, action, requestedBy: identity.email, requesterId: identity.userId, expiresAt: new Date(Date.now() + config().approvalTtlSeconds * 1000) },
        });
        await recordAudit({ action: `pack.${action}_requested`, actor: identity.email, actorId: identity.userId, approvalId, digest: row.digest, details: { pack: row.name, version: row.version, packId: id, dangerous } }, tx);
      });
      return { pack: await toPack(await rowOf(id)), approvalId };
    }
    await installVersion(row, skills, { email: identity.email, userId: identity.userId }, action, null);
    return { pack: await toPack(await rowOf(id)), approvalId: null };
  });
}

/**
 * Installs a stored version (DESIGN.md "Skill packs"): its files, read back and checked against the
 * digest list, are written into `work/` and renamed into `installed/<name>` (the folder there before
 * is renamed away first and removed after); then, in one transaction, the version enabled before
 * becomes `disabled`, this one `enabled` with it as `previousId`, pending approvals of every skill
 * whose digest changes (or that goes) are voided, and `pack.enabled` (or `pack.rolled_back`) is
 * audited with the skills changed and the approvals voided. The registry then rescans the pack's
 * folder, stale queued calls fail and the workers rescan (followChanges). If the transaction fails,
 * the folder that was installed is put back. Throws AppError `conflict`.
 */
async function installVersion(row: PackRow, skills: readonly PackSkill[], actor: { email: string; userId: string }, action: "enable" | "rollback", approvalId: string | null): Promise<void> {
  const entries = await storedEntries(row);
  const layout = realPackLayout(config().packsPath);
  await fs.mkdir(layout.installed, { recursive: true, mode: 0o755 });
  await fs.mkdir(layout.work, { recursive: true, mode: 0o700 });
  const incoming = path.join(layout.work, `${randomUUID()}-incoming`);
  const outgoing = path.join(layout.work, `${randomUUID()}-outgoing`);
  const target = installedFolder(row.name);
  await writePackEntries(incoming, entries);
  const hadOne = await fs.rename(target, outgoing).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return false;
      throw error;
    },
  );
  await fs.rename(incoming, target);
  const enabled = await enabledRow(row.name);
  const touched = voidedByEnabling(row, skills, enabled);
  let voided: string[] = [];
  try {
    voided = await modelTransaction(async (tx) => {
      if (enabled) {
        const off = await tx.pack.updateMany({ where: { id: enabled.id, status: "enabled" }, data: { status: "disabled" } });
        if (off.count !== 1) throw new AppError("conflict", `pack ${row.name} changed while it was being enabled; try again`);
      }
      const on = await tx.pack.updateMany({ where: { id: row.id, status: row.status }, data: { status: "enabled", previousId: enabled?.id ?? null, enabledAt: new Date(), skills: JSON.stringify(skills) } });
      if (on.count !== 1) throw new AppError("conflict", `pack ${row.name} ${row.version} changed while it was being enabled; try again`);
      const reason = `pack ${row.name} ${action === "rollback" ? "was rolled back" : "was updated"} to ${row.version}, which changes this skill`;
      const ids = await voidPendingApprovalsOfSkills(tx, touched, reason);
      await recordAudit(
        {
          action: action === "rollback" ? "pack.rolled_back" : "pack.enabled",
          actor: actor.email,
          actorId: actor.userId,
          approvalId,
          digest: row.digest,
          details: { pack: row.name, version: row.version, packId: row.id, previous: enabled ? { id: enabled.id, version: enabled.version } : null, skills: skills.filter((skill) => skill.change !== "same").map(({ name, change }) => ({ name, change })), voidedApprovals: ids },
        },
        tx,
      );
      return ids;
    });
  } catch (error) {
    await fs.rm(target, { recursive: true, force: true });
    if (hadOne) await fs.rename(outgoing, target);
    await followChanges([{ path: target, kind: "entries" }]);
    throw error;
  }
  if (hadOne) await fs.rm(outgoing, { recursive: true, force: true });
  await followChanges([{ path: target, kind: "entries" }]);
  if (voided.length > 0) approvalsChanged();
}

/**
 * Rolls a pack back (`POST /api/v1/packs/{id}/rollback`, admin, a person): `id` is its enabled version,
 * and the version enabled before it is enabled again, by the same rules as enablePack (a dangerous
 * skill changed back waits for a second admin). Throws AppError `not_found`, or `conflict` when the
 * version is not the enabled one or there is no earlier version.
 */
export async function rollbackPack(identity: Identity, id: string): Promise<EnableOutcome> {
  const row = await rowOf(id);
  if (row.status !== "enabled") throw new AppError("conflict", `pack ${row.name} ${row.version} is not the enabled version; roll back from the enabled one`);
  if (!row.previousId) throw new AppError("conflict", `pack ${row.name} ${row.version} has no earlier version to roll back to`);
  return enablePack(identity, row.previousId, "rollback");
}

/**
 * Uninstalls or discards a pack version (`DELETE /api/v1/packs/{id}`, admin, a person). The enabled
 * version: its folder leaves `installed/` (its skills leave the registry; their calls stay in the
 * history), it becomes `disabled`, pending approvals of its skills are voided, `pack.uninstalled` is
 * audited. A staged version (or one waiting for approval, whose approval is voided): its stored files
 * and row are removed, `pack.discarded` audited; so is an earlier (disabled) version's, unless it is
 * what rolling the enabled version back returns to. Returns the Pack as it was left. Throws AppError
 * `not_found`, or `conflict` for the rollback target.
 */
export async function deletePack(identity: Identity, id: string): Promise<Pack> {
  requirePerson(identity, "remove packs");
  return serialised(async () => {
    const row = await rowOf(id);
    if (row.status === "disabled") {
      const enabled = await enabledRow(row.name);
      if (enabled?.previousId === row.id) throw new AppError("conflict", `pack ${row.name} ${row.version} is what rolling ${enabled.version} back returns to: it is kept`);
    }
    if (row.status === "enabled") {
      const layout = realPackLayout(config().packsPath);
      await fs.mkdir(layout.work, { recursive: true, mode: 0o700 });
      const outgoing = path.join(layout.work, `${randomUUID()}-outgoing`);
      const target = installedFolder(row.name);
      await fs.rename(target, outgoing).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
      const names = staged(row).map((skill) => skill.name);
      const voided = await modelTransaction(async (tx) => {
        await tx.pack.updateMany({ where: { id, status: "enabled" }, data: { status: "disabled" } });
        const ids = await voidPendingApprovalsOfSkills(tx, names, `pack ${row.name} was uninstalled`);
        await recordAudit({ action: "pack.uninstalled", actor: identity.email, actorId: identity.userId, digest: row.digest, details: { pack: row.name, version: row.version, packId: id, skills: names, voidedApprovals: ids } }, tx);
        return ids;
      });
      await fs.rm(outgoing, { recursive: true, force: true });
      await followChanges([{ path: target, kind: "entries" }]);
      if (voided.length > 0) approvalsChanged();
      return toPack(await rowOf(id));
    }
    const pack = await toPack(row);
    await modelTransaction(async (tx) => {
      await tx.packApproval.updateMany({ where: { packId: id, status: "pending" }, data: { status: "void", reason: "the pack was discarded", decidedAt: new Date(), decidedBy: "system" } });
      const gone = await tx.pack.deleteMany({ where: { id, status: row.status } });
      if (gone.count !== 1) throw new AppError("conflict", `pack ${row.name} ${row.version} changed while it was being discarded; try again`);
      await recordAudit({ action: "pack.discarded", actor: identity.email, actorId: identity.userId, digest: row.digest, details: { pack: row.name, version: row.version, packId: id } }, tx);
    });
    await fs.rm(path.join(realPackLayout(config().packsPath).versions, id), { recursive: true, force: true });
    return { ...pack, status: "disabled" };
  });
}

/** Whether `id` names a pack's approval (the approvals routes hand it to signPackApproval / denyPackApproval). */
export async function isPackApproval(id: string): Promise<boolean> {
  return (await db().packApproval.count({ where: { id } })) > 0;
}

/**
 * Signs a pack's approval (`POST /api/v1/approvals/{id}/sign` for a pack approval; DESIGN.md "Skill
 * packs": enabling a pack that adds or changes a dangerous skill needs a second admin's signature, and
 * the requester cannot give it). The signer must be an admin now and not the requester; the approval
 * must be pending and unexpired (an expired one is marked so and its pack goes back to `staged`). The
 * stored files are checked against the digest the requester saw, then the version is installed and
 * the approval marked `approved` with the signer. Returns the Pack. Throws AppError `not_found`,
 * `forbidden` (403: not an admin, the requester, a token) or `conflict` (409: not pending, expired).
 */
export async function signPackApproval(approvalId: string, identity: Identity): Promise<{ pack: Pack; approval: { id: string; status: string } }> {
  requirePerson(identity, "sign approvals");
  return serialised(async () => {
    const approval = await db().packApproval.findUnique({ where: { id: approvalId } });
    if (!approval) throw new AppError("not_found", `no approval with id ${JSON.stringify(approvalId)}`);
    if (identity.role !== "admin") throw new AppError("forbidden", "enabling a pack is signed by a second admin");
    if (approval.requesterId === identity.userId) throw new AppError("forbidden", "the admin who asked to enable the pack cannot sign it: a second admin must");
    if (approval.status !== "pending") throw new AppError("conflict", `approval ${approvalId} is ${approval.status}, not pending`);
    const row = await rowOf(approval.packId);
    if (approval.expiresAt <= new Date()) {
      await closeApproval(approval.id, row, "expired", "system", null, "the approval expired before a second admin signed");
      throw new AppError("conflict", `approval ${approvalId} expired`);
    }
    if (row.digest !== approval.digest) {
      await closeApproval(approval.id, row, "void", "system", null, "the pack is not the one the requester saw");
      throw new AppError("conflict", `approval ${approvalId} is void: the pack is not the one the requester saw`);
    }
    const claimed = await db().packApproval.updateMany({ where: { id: approvalId, status: "pending" }, data: { status: "approved", decidedBy: identity.email, deciderId: identity.userId, decidedAt: new Date() } });
    if (claimed.count !== 1) throw new AppError("conflict", `approval ${approvalId} is no longer pending`);
    await recordAudit({ action: "pack.approval.signed", actor: identity.email, actorId: identity.userId, approvalId, digest: row.digest, details: { pack: row.name, version: row.version, packId: row.id } });
    const enabled = await enabledRow(row.name);
    const skills = changesAgainst(row, enabled);
    try {
      await refuseTakenAtEnable(row);
      await installVersion(row, skills, { email: approval.requestedBy, userId: approval.requesterId }, approval.action === "rollback" ? "rollback" : "enable", approvalId);
    } catch (error) {
      await closeApproval(approvalId, row, "void", "system", null, `the pack could not be installed: ${(error as Error).message}`, "approved");
      throw error;
    }
    return { pack: await toPack(await rowOf(row.id)), approval: { id: approvalId, status: "approved" } };
  });
}

async function closeApproval(id: string, row: PackRow, status: "expired" | "void" | "denied", actor: string, actorId: string | null, reason: string, from = "pending"): Promise<void> {
  await modelTransaction(async (tx) => {
    const closed = await tx.packApproval.updateMany({ where: { id, status: from }, data: { status, reason, decidedBy: actor, deciderId: actorId, decidedAt: new Date() } });
    if (closed.count !== 1) return;
    await tx.pack.updateMany({ where: { id: row.id, status: "awaiting_approval" }, data: { status: "staged" } });
    await recordAudit({ action: `pack.approval.${status === "void" ? "void" : status}`, actor, actorId, approvalId: id, digest: row.digest, details: { pack: row.name, version: row.version, packId: row.id, reason } }, tx);
  });
}

/**
 * Denies a pack's approval (`POST /api/v1/approvals/{id}/deny` for a pack approval; admin, a person):
 * the approval becomes `denied` with the reason and the pack goes back to `staged`. Throws AppError
 * `not_found`, `forbidden` (not an admin) or `conflict` (not pending).
 */
export async function denyPackApproval(approvalId: string, identity: Identity, reason: string | null): Promise<{ pack: Pack; approval: { id: string; status: string } }> {
  requirePerson(identity, "deny approvals");
  return serialised(async () => {
    const approval = await db().packApproval.findUnique({ where: { id: approvalId } });
    if (!approval) throw new AppError("not_found", `no approval with id ${JSON.stringify(approvalId)}`);
    if (identity.role !== "admin") throw new AppError("forbidden", "a pack's enabling is decided by admins");
    if (approval.status !== "pending") throw new AppError("conflict", `approval ${approvalId} is ${approval.status}, not pending`);
    const row = await rowOf(approval.packId);
    await closeApproval(approvalId, row, "denied", identity.email, identity.userId, reason ?? "denied");
    return { pack: await toPack(await rowOf(row.id)), approval: { id: approvalId, status: "denied" } };
  });
}
