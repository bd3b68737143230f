/** The three classes of DESIGN.md / seed 000 "Taxonomía de clases". */
export type SkillClass = "safe" | "mutating" | "dangerous";

/** Every class, ordered from least to most dangerous. */
export const SKILL_CLASSES: readonly SkillClass[] = ["safe", "mutating", "dangerous"] as const;

/** Kind of a skill: a skill.json manifest + executable, or a SKILL.md folder (native, a later issue). */
export type SkillKind = "subprocess" | "native";

/** JSON Schema document of a skill's args object, as written in the manifest. */
export type JsonSchema = Record<string, unknown>;

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
}

/** One manifest the loader looked at and what became of it. */
export interface LoaderEntry {
  /** Absolute path of the manifest (skill.json). */
  path: string;
  /** Allow-list root the manifest was found under. */
  root: string;
  /** Skill name when the manifest was readable enough to have one. */
  name: string | null;
  /** Why it was skipped or failed; null for registered skills. */
  reason: string | null;
  /** What the manifest does that the loader accepted but flags (e.g. an unknown field such as `env-allow`). */
  warnings: string[];
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
