/** A persona's permission mode (DESIGN.md "Concepts"). */
export type PermissionMode = "read-only" | "mutating-with-confirm" | "dual-sign-required";

/** The permission modes, from least to most permissive of dangerous work (DESIGN.md "Concepts"). */
export const PERMISSION_MODES: readonly PermissionMode[] = ["read-only", "mutating-with-confirm", "dual-sign-required"];

/** Name of the persona a call naming none runs under (read-only, `skills.allow: ["*"]`). */
export const DEFAULT_PERSONA_NAME = "default";

/**
 * A persona as the API and its YAML import/export spell it (DESIGN.md "Policy", issue 4 point 2):
 * `skills.allow` / `skills.deny` hold skill names, `category:<name>` and `*` globs (deny wins; no
 * allow list = nothing allowed); `categories` (seed 004's filter of native skills) absent = every
 * category. Times are ISO-8601.
 */
export interface Persona {
  name: string;
  description: string;
  permission_mode: PermissionMode;
  skills: { allow: string[]; deny: string[] };
  categories?: string[];
  createdAt: string;
  updatedAt: string;
}
