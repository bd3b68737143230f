/** Prefix of every loader log line (seed 000 "Logging en el arranque"). */
export const LOG_PREFIX = "skill loader: ";

/**
 * The loader's log lines. The first four are the seed's forms, character for character; the others
 * (roots and walk) keep the same prefix so `grep "skill loader:"` shows everything the loader did.
 * Each takes absolute paths as strings and returns one line without a trailing newline.
 */
export const loaderLine = {
  registered: (name: string, manifestPath: string) =>
    `${LOG_PREFIX}registered subprocess skill "${name}" from ${manifestPath}`,
  duplicate: (name: string, manifestPath: string) =>
    `${LOG_PREFIX}skill "${name}" already registered, skipping ${manifestPath}`,
  parse: (manifestPath: string, message: string) => `${LOG_PREFIX}parse ${manifestPath}: ${message}`,
  build: (name: string, message: string) => `${LOG_PREFIX}build "${name}": ${message}`,
  warning: (name: string, manifestPath: string, warning: string) => `${LOG_PREFIX}warning "${name}" in ${manifestPath}: ${warning}`,
  relativeRoot: (root: string) => `${LOG_PREFIX}skipping relative root ${JSON.stringify(root)}`,
  missingRoot: (root: string) => `${LOG_PREFIX}skipping missing root ${root}`,
  unusableRoot: (root: string, reason: string) => `${LOG_PREFIX}skipping root ${root}: ${reason}`,
  duplicateRoot: (root: string) => `${LOG_PREFIX}skipping root ${root}: already scanned`,
  unreadableDirectory: (dir: string, reason: string) => `${LOG_PREFIX}skipping unreadable directory ${dir}: ${reason}`,
  tooDeep: (dir: string, root: string, maxDepth: number) =>
    `${LOG_PREFIX}not descending into ${dir}: deeper than ${maxDepth} levels below ${root}`,
  tooMany: (root: string, dir: string, maxEntries: number) =>
    `${LOG_PREFIX}stopped walking ${root} at ${dir}: more than ${maxEntries} entries`,
  registeredNative: (name: string, skillFile: string) => `${LOG_PREFIX}registered native skill "${name}" from ${skillFile}`,
  skippedNative: (target: string, reason: string) => `${LOG_PREFIX}skipping ${target}: ${reason}`,
} as const;

/** Collects log lines in order and echoes each to a sink (console.log by default) as it happens. */
export interface LoaderLog {
  /** Records and echoes one line. */
  write(line: string): void;
  /** Every line written so far, in order. */
  readonly lines: string[];
}

/** Creates a LoaderLog echoing to `sink` (default console.log, so `npm start` shows the loader's work). */
export function createLoaderLog(sink: (line: string) => void = console.log): LoaderLog {
  const lines: string[] = [];
  return {
    lines,
    write(line) {
      lines.push(line);
      try {
        sink(line);
      } catch {
        // A broken log sink (say, a closed stdout) must not stop the scan; the line stays in the report.
      }
    },
  };
}

/**
 * A short reason for a failed file-system call: "does not exist", "permission denied", "not a
 * directory", "too many levels of symbolic links", else the error's code or message. Never throws.
 */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "does not exist";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOTDIR":
      return "not a directory";
    case "ELOOP":
      return "too many levels of symbolic links";
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}
