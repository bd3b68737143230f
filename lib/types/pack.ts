import type { SkillClass, SkillKind, SkillSandbox } from "./skill";

/**
 * Where a pack was staged from (DESIGN.md "Skill packs"): a local folder, a `.tar.gz` upload, or a git
 * repository at a commit (the `ref` as given; `Pack.commit` is what it resolved to). `plugin` names the
 * Claude Code marketplace plugin the pack was made of, when the source was a marketplace.
 */
export type PackSource =
  | { type: "folder"; path: string; plugin?: string }
  | { type: "upload"; bytes: number; plugin?: string }
  | { type: "git"; url: string; ref: string; plugin?: string };

/** What happens to a skill when its pack is enabled, against the version enabled now. */
export type PackSkillChange = "added" | "changed" | "removed" | "same";

/**
 * One skill of a pack as the review shows it: what it is, what it may touch, what it needs, and its
 * digest (the skill digest calls are bound to: the whole folder, manifest, class, sandbox).
 * A `removed` skill is one the enabled version has and this one has not (its other fields are the
 * enabled version's).
 */
export interface PackSkill {
  name: string;
  kind: SkillKind;
  class: SkillClass;
  description: string;
  /** The skill's folder relative to the pack's folder, e.g. `disk-report`. */
  folder: string;
  sandbox: SkillSandbox;
  secrets: string[];
  /** Why the skill will be listed but cannot run once enabled (its sandbox declaration exceeds SKILL_SANDBOX_ALLOW_PATHS, a binary it needs is missing), or null. */
  unavailableReason: string | null;
  change: PackSkillChange;
  digest: string;
}

/** Where a pack version stands: staged for review, enabled, waiting for a second admin, disabled, or enabled and changed on disk since. */
export const PACK_STATUSES = ["staged", "enabled", "awaiting_approval", "disabled", "modified"] as const;

/** One of PACK_STATUSES. */
export type PackStatus = (typeof PACK_STATUSES)[number];

/**
 * A staged, enabled or earlier version of a pack (DESIGN.md "Skill packs"). Each staging makes a new
 * one with its own id; one version per name is `enabled` at a time. `modified`: the enabled version's
 * files changed on disk since it was enabled (its changed skills do not run until a version is reviewed
 * and enabled again). `awaiting_approval`: its enabling waits for a second admin's signature.
 */
export interface Pack {
  id: string;
  name: string;
  version: string;
  description: string;
  status: PackStatus;
  source: PackSource;
  /** The git commit the pack was staged at (40 hex digits), or null for other sources. */
  commit: string | null;
  /** SHA-256 (hex) of the pack's digest list: every file's path, kind and hash. */
  digest: string;
  /** The trusted key name whose ed25519 signature over the digest list `pack.sig` carries, or null when unsigned. */
  signedBy: string | null;
  skills: PackSkill[];
  /**
   * The version the skills' `change` is against: for a version not enabled, the one enabled now
   * (`enabledNow`); for the enabled one, the one enabled before it. Null: none (every skill `added`).
   */
  comparedWith: { id: string; version: string; enabledNow: boolean } | null;
  /** The version enabled before this one was (what rollback returns to), or null. */
  previousVersion: { id: string; version: string; digest: string } | null;
  /** The pending approval of this version's enabling, when it waits for one. */
  approvalId: string | null;
  /** Who asked for that approval (they cannot sign it), or null. */
  approvalRequestedBy: string | null;
  stagedBy: string;
  stagedAt: string;
  enabledAt: string | null;
  /** Files of the enabled version changed on disk since (only when `modified`): paths relative to the pack folder. */
  modifiedFiles: string[];
}

/**
 * One version's review (`GET /api/v1/packs/{id}`): the Pack, every file's diff, what the files are
 * compared with — the version enabled now (`enabled`), the one before the enabled version
 * (`previous`), the enabled files as they are on disk (`disk`: a modified pack), or nothing (`none`:
 * every file added) — and the digest list a signature covers.
 */
export interface PackReview {
  pack: Pack;
  files: PackFileDiff[];
  filesAgainst: { kind: "enabled" | "previous" | "disk" | "none"; version: string | null };
  digestList: string;
}

/** How one file of a staged version differs from the enabled version of its pack. */
export interface PackFileDiff {
  path: string;
  change: "added" | "changed" | "removed" | "same";
  /** A unified diff of a text file (truncated past a bound, said in its last line), a sentence for a binary file or a link, or null when the same. */
  diff: string | null;
}

/** A Claude Code marketplace's plugin offered as a pack (`.claude-plugin/marketplace.json`). */
export interface MarketplacePlugin {
  name: string;
  description: string;
  version: string | null;
  /** Skill folders the plugin holds, relative to the repository. */
  skills: string[];
  /** Why it cannot be staged from this repository (a plugin whose source is another repository), or null. */
  unstageable: string | null;
}
