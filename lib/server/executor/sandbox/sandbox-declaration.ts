import { absolutePathProblem, isPathWithin } from "./sandbox-paths";

/**
 * What a skill asks of the sandbox beyond its own folder (DESIGN.md "Workers and the sandbox": the
 * manifest field `sandbox`). Paths are absolute, normalised, sorted and without duplicates.
 */
export interface SandboxDeclaration {
  /** Host paths bound read-only at the same place. */
  read: string[];
  /** Host paths bound writable at the same place. */
  write: string[];
  /** false: a private network namespace with only `lo`. */
  network: boolean;
  /** Device nodes under /dev/ bound with device access. */
  devices: string[];
  /** true: no private PID namespace; the host's processes are visible (and signalable as the sandbox uid may). */
  hostPids: boolean;
}

/** The declaration of a skill whose manifest has no `sandbox` field: nothing extra, network on. */
export const DEFAULT_SANDBOX_DECLARATION: Readonly<SandboxDeclaration> = Object.freeze({
  read: [],
  write: [],
  network: true,
  devices: [],
  hostPids: false,
});

/** Most entries one list of a declaration may have. */
export const MAX_DECLARED_PATHS = 64;

const PATH_LISTS = ["read", "write", "devices"] as const;
type PathList = (typeof PATH_LISTS)[number];
const KNOWN_KEYS = new Set<string>([...PATH_LISTS, "network", "host_pids"]);

/** The outcome of parseSandboxDeclaration. */
export type SandboxDeclarationParse = { ok: true; declaration: SandboxDeclaration } | { ok: false; message: string };

/**
 * Parses the manifest field `sandbox` as written in skill.json or SKILL.md frontmatter (DESIGN.md
 * "Workers and the sandbox"): `{"read": [...], "write": [...], "network": bool, "devices": [...],
 * "host_pids": bool}`, every key optional; `undefined` (no field) gives the default declaration.
 *
 * Refused, with a message naming the entry (e.g. `sandbox.read[0] must be an absolute path, not
 * "var/log"`): a non-object, an unknown key (manifests spell it `host_pids`), a list that is not an
 * array of strings or has more than 64 entries, a path that is not absolute and normalised (see
 * absolutePathProblem), a read or write path under /proc (host processes are `host_pids`'s job), a
 * device not under /dev/, the same path in two lists. The lists come back sorted and de-duplicated:
 * the declaration is part of the skill's digest, so one meaning has one form. Pure; never throws.
 */
export function parseSandboxDeclaration(value: unknown): SandboxDeclarationParse {
  if (value === undefined) return { ok: true, declaration: { ...DEFAULT_SANDBOX_DECLARATION, read: [], write: [], devices: [] } };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: `sandbox must be an object, got ${kindOf(value)}` };
  }
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !KNOWN_KEYS.has(key));
  if (unknown !== undefined) {
    return { ok: false, message: `sandbox has an unknown key ${quote(unknown)} (known: read, write, network, devices, host_pids)` };
  }
  const lists: Partial<Record<PathList, string[]>> = {};
  for (const name of PATH_LISTS) {
    const parsed = parsePathList(name, fields[name]);
    if (typeof parsed === "string") return { ok: false, message: parsed };
    lists[name] = parsed;
  }
  const overlap = findOverlap(lists);
  if (overlap !== null) return { ok: false, message: overlap };
  const network = parseFlag("network", fields.network, true);
  if (typeof network === "string") return { ok: false, message: network };
  const hostPids = parseFlag("host_pids", fields.host_pids, false);
  if (typeof hostPids === "string") return { ok: false, message: hostPids };
  return { ok: true, declaration: { read: lists.read ?? [], write: lists.write ?? [], network, devices: lists.devices ?? [], hostPids } };
}

function parsePathList(name: PathList, value: unknown): string[] | string {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return `sandbox.${name} must be an array of absolute paths, got ${kindOf(value)}`;
  if (value.length > MAX_DECLARED_PATHS) return `sandbox.${name} has ${value.length} entries; at most ${MAX_DECLARED_PATHS} are allowed`;
  for (const [index, entry] of value.entries()) {
    const problem = entryProblem(name, entry);
    if (problem !== null) return `sandbox.${name}[${index}] ${problem}`;
  }
  return canonicalPaths(value as string[]);
}

function entryProblem(name: PathList, entry: unknown): string | null {
  if (typeof entry !== "string") return `must be a string, got ${kindOf(entry)}`;
  const problem = absolutePathProblem(entry);
  if (problem === "not absolute") return `must be an absolute path, not ${quote(entry)}`;
  if (problem !== null) return `must be a normalised absolute path, not ${quote(entry)} (${problem})`;
  if (name === "devices") return isPathWithin(entry, "/dev") && entry !== "/dev" ? null : `must be a device under /dev/, not ${quote(entry)}`;
  // The host's /proc would show (and name) every host process; a declared one would undo the PID namespace.
  if (isPathWithin(entry, "/proc")) return `may not be under /proc, not ${quote(entry)} (declare "host_pids": true to see host processes)`;
  return null;
}

/** Each path in one list only: a path both read and write would leave its mode to mount order. */
function findOverlap(lists: Partial<Record<PathList, string[]>>): string | null {
  const seen = new Map<string, PathList>();
  for (const name of PATH_LISTS) {
    for (const entry of lists[name] ?? []) {
      const first = seen.get(entry);
      if (first !== undefined) return `sandbox.${name} ${quote(entry)} is also in sandbox.${first}; list each path once`;
      seen.set(entry, name);
    }
  }
  return null;
}

function parseFlag(name: string, value: unknown, fallback: boolean): boolean | string {
  if (value === undefined) return fallback;
  return typeof value === "boolean" ? value : `sandbox.${name} must be true or false, got ${kindOf(value)}`;
}

/**
 * Parses SKILL_SANDBOX_ALLOW_PATHS (DESIGN.md "Workers and the sandbox": a declaration cannot widen
 * past it): absolute normalised paths separated by `:` or `,`, blanks around them ignored; empty or
 * unset allows none. Returns them sorted and de-duplicated. Throws Error naming the first entry that
 * is not an absolute normalised path, e.g. `SKILL_SANDBOX_ALLOW_PATHS entry "var/log" must be an absolute path`.
 */
export function parseSandboxAllowPaths(raw: string | undefined, variable = "SKILL_SANDBOX_ALLOW_PATHS"): string[] {
  if (raw === undefined) return [];
  const entries = raw.split(/[:,]/).map((entry) => entry.trim()).filter((entry) => entry !== "");
  for (const entry of entries) {
    const problem = absolutePathProblem(entry);
    if (problem === "not absolute") throw new Error(`${variable} entry ${quote(entry)} must be an absolute path`);
    if (problem !== null) throw new Error(`${variable} entry ${quote(entry)} must be a normalised absolute path (${problem})`);
  }
  return canonicalPaths(entries);
}

/**
 * Why `declaration` may not be granted on this worker, or null when it may (DESIGN.md "Workers and the
 * sandbox": a manifest asking for more is loaded but unavailable, with the reason). Every read, write
 * and device path must be equal to or under one of `allowPaths`, and none may be equal to or under one
 * of `hiddenPaths` (the console's folder, its data, the skill roots, …), which the sandbox always hides;
 * a path above a hidden one (read "/") is fine, the hidden one is masked inside it. The comparison is
 * by segments and lexical: the sandbox re-checks the real paths when it builds the command. Examples:
 * `sandbox.read "/var/log" is outside SKILL_SANDBOX_ALLOW_PATHS (allowed: none)`,
 * `sandbox.write "/srv/console/data" is inside "/srv/console", which the sandbox always hides`. Pure.
 */
export function declarationOutsideAllowance(
  declaration: SandboxDeclaration,
  allowPaths: readonly string[],
  hiddenPaths: readonly string[],
): string | null {
  for (const name of PATH_LISTS) {
    for (const entry of declaration[name]) {
      const hidden = hiddenPaths.find((root) => isPathWithin(entry, root));
      if (hidden !== undefined) return `sandbox.${name} ${quote(entry)} is inside ${quote(hidden)}, which the sandbox always hides`;
      if (!allowPaths.some((root) => isPathWithin(entry, root))) {
        const allowed = allowPaths.length === 0 ? "none" : allowPaths.join(", ");
        return `sandbox.${name} ${quote(entry)} is outside SKILL_SANDBOX_ALLOW_PATHS (allowed: ${allowed})`;
      }
    }
  }
  return null;
}

/**
 * One line describing a declaration for the skill page and approvals (DESIGN.md "Workers and the
 * sandbox": the declaration is shown on the skill page and on every approval), e.g.
 * `read /var/log · write none · network on · devices none · host pids off`. Pure.
 */
export function describeDeclaration(declaration: SandboxDeclaration): string {
  const list = (paths: readonly string[]) => (paths.length === 0 ? "none" : paths.join(", "));
  return [
    `read ${list(declaration.read)}`,
    `write ${list(declaration.write)}`,
    `network ${declaration.network ? "on" : "off"}`,
    `devices ${list(declaration.devices)}`,
    `host pids ${declaration.hostPids ? "on" : "off"}`,
  ].join(" · ");
}

function canonicalPaths(paths: readonly string[]): string[] {
  return [...new Set(paths)].sort();
}

/** A value quoted for a message: JSON escapes control characters; very long values are cut. */
function quote(value: string): string {
  return JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
