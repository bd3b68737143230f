/** The three classes of DESIGN.md / seed 000 "Taxonomía de clases". */
export type SkillClass = "safe" | "mutating" | "dangerous";

/** Every class, ordered from least to most dangerous. */
export const SKILL_CLASSES: readonly SkillClass[] = ["safe", "mutating", "dangerous"] as const;

/** Kind of a skill: a skill.json manifest + executable, or a SKILL.md folder (native, seed 004). */
export type SkillKind = "subprocess" | "native";

/** JSON Schema document of a skill's args object, as written in the manifest. */
export type JsonSchema = Record<string, unknown>;

/**
 * What a skill may reach beyond its own folder when it runs in the sandbox (DESIGN.md "Workers and the
 * sandbox": `sandbox` in skill.json or the SKILL.md frontmatter; part of the skill's digest, shown on the
 * skill page and every approval). Paths are absolute and bound at the same place; lists are sorted.
 */
export interface SkillSandbox {
  read: string[];
  write: string[];
  /** Default true; false leaves only the loopback interface. */
  network: boolean;
  devices: string[];
  /** See and signal the host's processes (no pid namespace). */
  hostPids: boolean;
}

/**
 * A skill as served by `GET /api/v1/skills` (DESIGN.md "Skill" shape).
 * `timeoutSeconds` is the effective timeout (30 when the manifest says 0 or nothing).
 */
export interface Skill {
  name: string;
  kind: SkillKind;
  description: string;
  category: string;
  class: SkillClass;
  schema: JsonSchema;
  timeoutSeconds: number;
  envAllow: string[];
  source: { root: string; path: string };
  available: boolean;
  unavailableReason: string | null;
  warnings: string[];
  /** What the skill declares it needs beyond its folder when sandboxed. */
  sandbox: SkillSandbox;
  /**
   * Secrets the skill needs (DESIGN.md "Skill secrets"): a native skill's `requires.env` and
   * `primaryEnv`; it is unavailable until each is given to it. Empty for subprocess skills.
   */
  secretsNeeded: string[];
  /** Names of the secrets given to the skill (injected into its processes as environment variables), sorted. */
  secretsGiven: string[];
  /** Native only: the frontmatter's `when_to_use` (level 1, searched with name and description). */
  whenToUse?: string | null;
  /** Native only: the `tools[]` the frontmatter declares. */
  tools?: NativeToolDeclaration[];
  /** Native only: the skill folder's files (level 3 index): scripts/, references/, templates/, assets/ and every other. */
  resources?: NativeResources;
  /** Native only: how the SKILL.md departs from the Agent Skills specification (what a strict client would refuse); empty when it does not. */
  specDeviations?: string[];
  /** Native only: the class the frontmatter declares (own `class`, else the highest of `tools[]`); null = none, scripts then run as `mutating`. */
  declaredClass?: SkillClass | null;
  /** Native only: `license`, `activation`, `metadata` and any other frontmatter, as parsed (shown, never interpreted further). */
  frontmatter?: Record<string, unknown>;
  /** Native only, and only in `GET /api/v1/skills/{name}` (level 2): the markdown body of SKILL.md. */
  instructions?: string;
}

/** One entry of a native skill's frontmatter `tools[]` (seed 000's richer frontmatter). */
export interface NativeToolDeclaration {
  name: string;
  impl: string | null;
  class: SkillClass | null;
  description: string | null;
}

/**
 * The resource files of a native skill (seed 004 level 3), each a path relative to the skill's folder
 * with `/` separators and its folder as prefix (`scripts/check.sh`, `references/guide.md`), sorted.
 * `other` holds every other file of the folder (`FORMS.md`, `reference/api.md`, `python/x.py`): public
 * skills keep their level-3 files beside SKILL.md (DESIGN.md "Native skills"); hidden files are not served.
 */
export interface NativeResources {
  scripts: string[];
  references: string[];
  templates: string[];
  assets: string[];
  other: string[];
}

/** The resource folders of a native skill, in the order they are listed. */
export const RESOURCE_FOLDERS = ["scripts", "references", "templates", "assets"] as const;
export type ResourceFolder = (typeof RESOURCE_FOLDERS)[number];
/** Every list of a native skill's resource index: the resource folders, then the folder's other files. */
export const RESOURCE_LISTS = [...RESOURCE_FOLDERS, "other"] as const;
export type ResourceList = (typeof RESOURCE_LISTS)[number];

/** One manifest the loader looked at and what became of it. */
export interface LoaderEntry {
  /** Absolute path of the manifest (skill.json) or of the native skill's SKILL.md. */
  path: string;
  /** Allow-list root the manifest was found under (the skills path for native skills). */
  root: string;
  /** Which loader looked at it; absent on reports written before native skills existed = subprocess. */
  kind?: SkillKind;
  /** Skill name when the manifest was readable enough to have one. */
  name: string | null;
  /** Why it was skipped or failed; null for registered skills. */
  reason: string | null;
  /** What the manifest does that the loader accepted but flags (e.g. an unknown field such as `env-allow`). */
  warnings: string[];
  /** A SKILL.md's departures from the Agent Skills specification (absent for skill.json and older reports). */
  specDeviations?: string[];
}

/** A root the loader was given and what it did with it. */
export interface LoaderRoot {
  path: string;
  status: "scanned" | "skipped";
  reason: string | null;
}

/**
 * The loader report served at `GET /api/v1/loader` (issue 2 point 3): registered, skipped (duplicate
 * names) and failed (parse or build errors) manifests with path and reason, plus the seed's log lines.
 */
/** What started a loader scan: the console's start, a Rescan, another replica's reload, or changes the root watcher saw. */
export type LoaderScanTrigger = "start" | "rescan" | "replica" | "watch";

/**
 * One scan in the loader's history (`GET /api/v1/loader` `history`, newest first): when and why it ran,
 * its loader time in ms, what it found, and which skills it added, removed or changed against the scan
 * before it (names, at most LOADER_SCAN_NAMES each; the counts are whole). A watch scan names the paths
 * that changed (at most LOADER_SCAN_NAMES; `pathCount` is whole).
 */
export interface LoaderScan {
  at: string;
  trigger: LoaderScanTrigger;
  durationMs: number;
  count: number;
  failed: number;
  skipped: number;
  added: string[];
  addedCount: number;
  removed: string[];
  removedCount: number;
  changed: string[];
  changedCount: number;
  paths: string[];
  pathCount: number;
}

/** Most names (and paths) a LoaderScan lists per kind. */
export const LOADER_SCAN_NAMES = 20;

/**
 * What one scan changed, in words: "added a, b; removed c; changed d and 3 more" ("no skill changed"
 * when nothing did; the first scan says how many it registered). The Loader page's history and the
 * console's log line of a watched rescan both say it so. Pure.
 */
export function scanChanges(scan: LoaderScan): string {
  if (scan.trigger === "start") return `${scan.addedCount} skill${scan.addedCount === 1 ? "" : "s"} registered`;
  const part = (verb: string, names: string[], count: number) => (count === 0 ? [] : [`${verb} ${names.join(", ")}${count > names.length ? ` and ${count - names.length} more` : ""}`]);
  const parts = [...part("added", scan.added, scan.addedCount), ...part("removed", scan.removed, scan.removedCount), ...part("changed", scan.changed, scan.changedCount)];
  return parts.length > 0 ? parts.join("; ") : "no skill changed";
}

/**
 * Whether the console watches its roots (`GET /api/v1/loader` `watch`): `watching` the listed paths,
 * `off` (SKILLS_WATCH=false, or not started), or `failed` with the reason (changes then wait for Rescan).
 */
export interface LoaderWatch {
  status: "watching" | "off" | "failed";
  paths: string[];
  reason: string | null;
}

export interface LoaderReport {
  loadedAt: string;
  durationMs: number;
  roots: LoaderRoot[];
  registered: LoaderEntry[];
  skipped: LoaderEntry[];
  failed: LoaderEntry[];
  /** The log lines in the seed's four forms, plus one per skipped root. */
  log: string[];
  /** How many skills were registered (the seed's return value). */
  count: number;
}
