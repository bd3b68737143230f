import fs from "node:fs";
import path from "node:path";
import { consoleEnvValue, SCRIPT_SYSTEM_PATH } from "@/lib/server/env";

/**
 * Keys under `metadata` that carry OpenClaw's gating block: `openclaw`, its earlier names from the
 * project's renames (`clawdbot`, `clawdis`, `moltbot`), which published skills still use, and
 * `clawdhub` (its registry's name, found in published skills too): gating ignored is a skill shown
 * available while it cannot run.
 */
export const OPENCLAW_METADATA_KEYS = ["openclaw", "clawdbot", "clawdis", "moltbot", "clawdhub"] as const;

/** What a native skill needs from the host, gathered from `metadata` and its OpenClaw blocks. */
export interface HostRequirements {
  /** Platforms (process.platform words) the skill runs on, one list per block that declared one; empty = any. */
  osLists: string[][];
  /** Executables that must all be on PATH. */
  bins: string[];
  /** Groups of executables of which at least one must be on PATH (one group per declaring block). */
  anyBins: string[][];
  /** Environment variables the skill needs: secrets it must be given (DESIGN.md "Skill secrets"), never the console's environment. */
  env: string[];
  /** `requires.config` entries: shown, never checked. */
  config: string[];
}

const OS_ALIASES: Readonly<Record<string, string>> = {
  linux: "linux",
  darwin: "darwin",
  macos: "darwin",
  mac: "darwin",
  osx: "darwin",
  "mac os": "darwin",
  windows: "win32",
  win: "win32",
  win32: "win32",
  win64: "win32",
  freebsd: "freebsd",
  openbsd: "openbsd",
  netbsd: "netbsd",
  sunos: "sunos",
  solaris: "sunos",
  aix: "aix",
  android: "android",
};

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(value: unknown, where: string, warnings: string[]): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  const kept: string[] = [];
  for (const item of items) {
    if (typeof item === "string" && item.trim() !== "") kept.push(item.trim());
    else warnings.push(`${where}: ignored ${JSON.stringify(item) ?? String(item)} (not a non-empty string)`);
  }
  return kept;
}

/**
 * The frontmatter's `metadata` as a mapping: a mapping as is; a string holding a JSON object (some
 * OpenClaw skills quote their one-line metadata) parsed, with a warning; anything else null, with a
 * warning when present. A top-level key `metadata.<name>` (a dotted key some skills write) is read as
 * `<name>` under metadata, with a warning. Pure apart from pushing to `warnings`.
 */
export function readMetadata(frontmatter: Record<string, unknown>, warnings: string[]): Record<string, unknown> | null {
  const metadata = metadataBlock(frontmatter, warnings);
  // `metadata.openclaw: {...}` written as one top-level key (published skills do): read as metadata's.
  const dotted = Object.keys(frontmatter).filter((key) => key.startsWith("metadata.") && key.length > "metadata.".length);
  if (dotted.length === 0) return metadata;
  const merged: Record<string, unknown> = { ...(metadata ?? {}) };
  for (const key of dotted) {
    const inner = key.slice("metadata.".length);
    if (inner in merged) {
      warnings.push(`the top-level key ${key} is ignored: metadata already has ${inner}`);
      continue;
    }
    merged[inner] = frontmatter[key];
    warnings.push(`the top-level key ${key} is read as ${inner} under metadata`);
  }
  return merged;
}

/** The frontmatter's `metadata` itself (see readMetadata). */
function metadataBlock(frontmatter: Record<string, unknown>, warnings: string[]): Record<string, unknown> | null {
  const metadata = frontmatter.metadata;
  if (metadata === undefined || metadata === null) return null;
  if (isMapping(metadata)) return metadata;
  if (typeof metadata === "string" && metadata.trim().startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(metadata);
      if (isMapping(parsed)) {
        warnings.push("metadata is a string holding JSON; read as a mapping");
        return parsed;
      }
    } catch {
      // reported below
    }
  }
  warnings.push("metadata is not a mapping; its gating keys (os, requires) are ignored");
  return null;
}

/**
 * Gathers the host requirements of a skill (DESIGN.md "Native skills"; OpenClaw's gating keys): `os`,
 * `requires.{bins,anyBins,env,config}` and `primaryEnv` (an environment variable the skill needs) at the
 * frontmatter's top level, under `metadata`, and under `metadata.openclaw` or its earlier names
 * (`metadata.clawdbot`, `metadata.clawdis`, `metadata.moltbot`, `metadata.clawdhub`). `os` and every list accept one string
 * or a list of strings; os words are mapped to process.platform names (macos → darwin, windows →
 * win32); an unknown os word is kept as written and warned about. Malformed values are warnings, never
 * failures. Pure apart from pushing to `warnings`.
 */
export function readHostRequirements(frontmatter: Record<string, unknown>, metadata: Record<string, unknown> | null, warnings: string[]): HostRequirements {
  const requirements: HostRequirements = { osLists: [], bins: [], anyBins: [], env: [], config: [] };
  // "" is the frontmatter's top level: its keys are named bare (`os`, `requires.bins`).
  const blocks: Array<[string, Record<string, unknown>]> = [["", frontmatter]];
  if (metadata) blocks.push(["metadata", metadata]);
  for (const key of OPENCLAW_METADATA_KEYS) {
    const block = metadata?.[key];
    if (block === undefined || block === null) continue;
    if (isMapping(block)) blocks.push([`metadata.${key}`, block]);
    else warnings.push(`metadata.${key} is not a mapping; ignored`);
  }
  for (const [where, block] of blocks) {
    const at = (key: string) => (where === "" ? key : `${where}.${key}`);
    if (block.primaryEnv !== undefined && block.primaryEnv !== null) requirements.env.push(...stringList(block.primaryEnv, at("primaryEnv"), warnings));
    if (block.os !== undefined && block.os !== null) {
      const words = stringList(block.os, at("os"), warnings);
      const platforms = words.map((word) => {
        const platform = OS_ALIASES[word.toLowerCase()];
        if (!platform) warnings.push(`${at("os")}: unknown operating system ${JSON.stringify(word)}`);
        return platform ?? word;
      });
      if (platforms.length > 0) requirements.osLists.push(platforms);
    }
    const requires = block.requires;
    if (requires === undefined || requires === null) continue;
    if (!isMapping(requires)) {
      warnings.push(`${at("requires")} is not a mapping; ignored`);
      continue;
    }
    requirements.bins.push(...stringList(requires.bins, at("requires.bins"), warnings));
    const anyBins = stringList(requires.anyBins, at("requires.anyBins"), warnings);
    if (anyBins.length > 0) requirements.anyBins.push(anyBins);
    requirements.env.push(...stringList(requires.env, at("requires.env"), warnings));
    requirements.config.push(...stringList(requires.config, at("requires.config"), warnings));
  }
  requirements.bins = [...new Set(requirements.bins)];
  requirements.env = [...new Set(requirements.env)];
  requirements.config = [...new Set(requirements.config)];
  return requirements;
}

/** Looks executables up on a PATH; results are cached for the probe's lifetime (one loader scan). */
export interface HostProbe {
  /** process.platform of this host. */
  platform: string;
  /** True when `bin` (a bare command name) is an executable regular file in one of the PATH folders. */
  hasBin(bin: string): boolean;
}

/**
 * A HostProbe for this process: PATH = the console's own PATH followed by SCRIPT_SYSTEM_PATH (where
 * the scripts' interpreters are found); a name holding `/` is never looked up (only bare commands).
 */
export function createHostProbe(): HostProbe {
  const folders = [...new Set([...(consoleEnvValue("PATH") ?? "").split(path.delimiter), ...SCRIPT_SYSTEM_PATH.split(":")])].filter(
    (folder) => folder !== "" && path.isAbsolute(folder),
  );
  const cache = new Map<string, boolean>();
  return {
    platform: process.platform,
    hasBin(bin) {
      const known = cache.get(bin);
      if (known !== undefined) return known;
      let found = false;
      if (!bin.includes("/") && bin !== "." && bin !== "..") {
        for (const folder of folders) {
          try {
            const candidate = path.join(folder, bin);
            fs.accessSync(candidate, fs.constants.X_OK);
            if (fs.statSync(candidate).isFile()) {
              found = true;
              break;
            }
          } catch {
            // not in this folder
          }
        }
      }
      cache.set(bin, found);
      return found;
    },
  };
}

/**
 * Why this host cannot use a skill, or null when it can (issue 5 point 1): its os lists exclude
 * `probe.platform`, a `requires.bins` entry is not on PATH, or no entry of an `anyBins` group is.
 * Reasons are joined with "; ", e.g. "requires bins not found on PATH: kubectl, helm". `requires.env`
 * is not the host's business: those are secrets the skill must be given (the registry's
 * withSecretGrants; a variable of the console's own environment never satisfies one). Pure apart
 * from the probe's look-ups.
 */
export function unavailableReason(requirements: HostRequirements, probe: HostProbe): string | null {
  const reasons: string[] = [];
  for (const platforms of requirements.osLists) {
    if (!platforms.includes(probe.platform)) {
      reasons.push(`os not supported: runs on ${platforms.join(", ")} (this host is ${probe.platform})`);
      break;
    }
  }
  const missingBins = requirements.bins.filter((bin) => !probe.hasBin(bin));
  if (missingBins.length > 0) reasons.push(`requires bins not found on PATH: ${missingBins.join(", ")}`);
  for (const group of requirements.anyBins) {
    if (!group.some((bin) => probe.hasBin(bin))) reasons.push(`requires one of these bins on PATH, none found: ${group.join(", ")}`);
  }
  return reasons.length > 0 ? reasons.join("; ") : null;
}
