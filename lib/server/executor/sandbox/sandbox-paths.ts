/** Longest path a sandbox declaration or setting may name, in characters (PATH_MAX). */
export const MAX_SANDBOX_PATH_LENGTH = 4096;

/**
 * Why `value` is not an absolute, normalised path, or null when it is one (DESIGN.md "Workers and the
 * sandbox": declared paths are bound at the same place, so they must name one place unambiguously).
 * Refused: anything but a string, relative paths, `.` and `..` segments, empty segments (`//`), a
 * trailing `/` (except "/" itself), NUL and other control characters, more than 4096 characters.
 * The reason reads after "must be an absolute path, not …" is said by the caller. Pure.
 */
export function absolutePathProblem(value: unknown): string | null {
  if (typeof value !== "string") return "not a string";
  if (value.length > MAX_SANDBOX_PATH_LENGTH) return `longer than ${MAX_SANDBOX_PATH_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f]/.test(value)) return "it contains a control character";
  if (!value.startsWith("/")) return "not absolute";
  if (value === "/") return null;
  if (value.endsWith("/")) return "it ends with /";
  const segments = value.slice(1).split("/");
  if (segments.some((segment) => segment === "")) return "it contains //";
  if (segments.some((segment) => segment === "." || segment === "..")) return "it contains . or .. segments";
  return null;
}

/**
 * True when `path` is `root` or lies below it, comparing whole segments (`/var/logs` is not under
 * `/var/log`). Both must be absolute and normalised (see absolutePathProblem). Pure.
 */
export function isPathWithin(path: string, root: string): boolean {
  if (root === "/") return path.startsWith("/");
  return path === root || path.startsWith(`${root}/`);
}

/** Number of segments of a normalised absolute path: "/" → 0, "/usr" → 1, "/usr/lib" → 2. Pure. */
export function pathDepth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

/**
 * Where `path` (at or below `sourceRoot`) appears when `sourceRoot` is mounted at `targetRoot`:
 * `("/srv/a/b", "/srv", "/mnt")` → "/mnt/a/b". The caller checks isPathWithin(path, sourceRoot). Pure.
 */
export function rebasePath(path: string, sourceRoot: string, targetRoot: string): string {
  const rest = sourceRoot === "/" ? path.slice(1) : path.slice(sourceRoot.length + 1);
  if (rest === "") return targetRoot;
  return targetRoot === "/" ? `/${rest}` : `${targetRoot}/${rest}`;
}
