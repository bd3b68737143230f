import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import path from "node:path";
import canonicalize from "canonicalize";
import { folderFingerprint, sha256OfRegularFile } from "./file-hash";
import { config } from "../env";
import { planExecution, type ExecutionPlan } from "../calls/execution-plan";
import type { RegisteredSkill } from "../skills/registered-skill";

/** What a call's digest covers (DESIGN.md "Dual-sign rules"): the exact thing the call will run. */
export interface DigestInput {
  skill: string;
  args: unknown;
  manifestSha256: string;
  entrySha256: string;
  envAllow: string[];
  timeoutSeconds: number;
  /** Native scripts only: the interpreter's path (absent for subprocess skills, so their digests are unchanged). */
  interpreter?: string;
  /** Native scripts only: folderFingerprint of the skill's scripts/ folder (helpers the script sources or imports). */
  scriptsSha256?: string;
}

/** A computed digest: SHA-256 (hex) of `text`, the RFC 8785 canonical JSON of `input`. */
export interface CallDigest {
  digest: string;
  input: DigestInput;
  text: string;
}

function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Error thrown by computeCallDigest when what the call would run cannot be planned at all. */
export class UnplannableCallError extends Error {}

/**
 * Computes the digest a call is bound to (issue 4 point 5): SHA-256 (hex) of the RFC 8785 canonical
 * JSON of `{skill, args, manifestSha256, entrySha256, envAllow, timeoutSeconds}`, where the two hashes
 * are of the manifest file and of the entry file (after realpath) as they are on disk right now — read
 * synchronously so the check just before spawning stays a few milliseconds from execve. For a native
 * skill the manifest is its SKILL.md, the entry the script the args name, and the interpreter's path
 * and a fingerprint of the whole scripts/ folder (what the script may source or import) are added
 * (planExecution, folderFingerprint). Files are read through sha256OfRegularFile, so a FIFO or device
 * swapped in for one is refused instead of blocking the console. `argsJson` is the call's stored args
 * text; `plan`, when the caller has just made it with planExecution, saves planning again. Throws the
 * file system's error (or NotARegularFileError) when a file cannot be read, or
 * UnplannableCallError when a native script cannot be planned or its scripts/ folder is too big to
 * fingerprint (callers treat all of them as a mismatch at recheck time).
 */
export function computeCallDigest(skill: RegisteredSkill, argsJson: string, plan?: ExecutionPlan): CallDigest {
  let manifestFile = skill.source.path;
  let entryFile: string;
  let interpreter: string | null = null;
  let scriptsSha256: string | null = null;
  if (skill.kind === "subprocess") {
    entryFile = realpathSync(skill.entryPath);
  } else {
    const planned = plan ?? planExecution(skill, argsJson, config());
    if (typeof planned === "string") throw new UnplannableCallError(planned);
    manifestFile = planned.manifestFile;
    entryFile = planned.entryFile;
    interpreter = planned.interpreter;
    try {
      scriptsSha256 = folderFingerprint(path.join(skill.skillDir, "scripts"));
    } catch (error) {
      throw new UnplannableCallError(error instanceof Error ? error.message : String(error));
    }
  }
  const input: DigestInput = {
    skill: skill.name,
    args: JSON.parse(argsJson) as unknown,
    manifestSha256: sha256OfRegularFile(manifestFile),
    entrySha256: sha256OfRegularFile(entryFile),
    envAllow: [...skill.envAllow],
    timeoutSeconds: skill.timeoutSeconds,
  };
  if (interpreter !== null) input.interpreter = interpreter;
  if (scriptsSha256 !== null) input.scriptsSha256 = scriptsSha256;
  const text = canonicalize(input) ?? "";
  return { digest: sha256(text), input, text };
}

const PART_NAMES: Record<keyof DigestInput, string> = {
  skill: "the skill name",
  args: "the args",
  manifestSha256: "the manifest (skill.json)",
  entrySha256: "the entry file",
  envAllow: "env_allow",
  timeoutSeconds: "the timeout",
  interpreter: "the interpreter",
  scriptsSha256: "the scripts/ folder",
};

/** The same parts as a native skill's call names them. */
const NATIVE_PART_NAMES: Record<keyof DigestInput, string> = { ...PART_NAMES, manifestSha256: "SKILL.md", entrySha256: "the script" };

/**
 * Recomputes a call's digest and compares it with the one frozen at request time. Returns null when it
 * still matches, else the reason in words, naming what changed when the frozen input is known (e.g.
 * `the entry file changed since the call was requested (digest 1a2b3c4d… is now 5e6f7a8b…)`), or why it
 * could not be computed. Never throws.
 */
export function digestMismatch(
  skill: RegisteredSkill | null,
  argsJson: string,
  frozen: { digest: string; inputText?: string | null },
): string | null {
  if (!skill) return "the skill is no longer registered, so what the call would run cannot be checked";
  let now: CallDigest;
  try {
    now = computeCallDigest(skill, argsJson);
  } catch (error) {
    if (error instanceof UnplannableCallError) return `what the call would run cannot be checked any more: ${error.message}`;
    return `what the call would run cannot be read any more (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (now.digest === frozen.digest) return null;
  let what = "what the call runs";
  if (frozen.inputText) {
    try {
      const before = JSON.parse(frozen.inputText) as Record<string, unknown>;
      const changed = (Object.keys(PART_NAMES) as Array<keyof DigestInput>).filter((key) => canonicalize(before[key]) !== canonicalize(now.input[key]));
      const names = skill.kind === "native" ? NATIVE_PART_NAMES : PART_NAMES;
      if (changed.length > 0) what = changed.map((key) => names[key]).join(" and ");
    } catch {
      // An unreadable frozen input only makes the reason less specific.
    }
  }
  return `${what} changed since the call was requested (digest ${frozen.digest.slice(0, 12)}… is now ${now.digest.slice(0, 12)}…)`;
}
