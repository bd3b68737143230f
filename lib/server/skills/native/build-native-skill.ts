import path from "node:path";
import { RESOURCE_LISTS, type NativeToolDeclaration, type SkillClass } from "@/lib/types/skill";
import { ENV_NAME_PATTERN, MAX_TIMEOUT_SECONDS } from "@/lib/validation/manifest-schema";
import { DEFAULT_SANDBOX_DECLARATION, parseSandboxDeclaration } from "../../executor/sandbox/sandbox-declaration";
import type { NativeSkill } from "../registered-skill";
import { readHostRequirements, readMetadata, unavailableReason, type HostProbe } from "./host-requirements";
import { listResources } from "./list-resources";
import { runScriptSchema, scriptNames } from "./run-script-schema";
import { highestClass, readClassWord } from "./skill-class-words";
import { missingInstructionPaths, MAX_MISSING_PATH_WARNINGS } from "./instruction-paths";
import { specDeviations } from "./spec-deviations";
import type { WorkSlices } from "../work-slices";
import type { Dirent } from "node:fs";

/** Everything buildNativeSkill needs about one SKILL.md that parsed. */
export interface NativeSkillSource {
  frontmatter: Record<string, unknown>;
  body: string;
  /** Warnings of the earlier steps (file name, parsing), listed first. */
  warnings: string[];
  /** The folder under the skills path (the skill's category). */
  category: string;
  /** The skill's own folder name. */
  folderName: string;
  /** realpath of the skill's folder. */
  skillDir: string;
  /** realpath of the SKILL.md. */
  skillFile: string;
  /** SHA-256 of the SKILL.md bytes parsed (SkillSource). */
  skillFileSha256: string;
  /** Path of the SKILL.md under the skills path (shown as `source.path`). */
  sourcePath: string;
  /** realpath of the skills path (`source.root`). */
  root: string;
  defaultTimeoutSeconds: number;
  probe: HostProbe;
  /** The scan's slices of synchronous work (work-slices.ts): listing a large folder yields through them; default a slice of its own. */
  slices?: WorkSlices;
  /** The skill folder's entries, when the loader read them already (listResources reads them otherwise). */
  folderEntries?: readonly Dirent[];
}

function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function readName(source: NativeSkillSource, warnings: string[]): string {
  const raw = source.frontmatter.name;
  let name: string;
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) {
    warnings.push(`name is missing; using the folder name ${JSON.stringify(source.folderName)}`);
    name = source.folderName;
  } else if (typeof raw !== "string") {
    warnings.push(`name ${describe(raw)} is not a string; using the folder name ${JSON.stringify(source.folderName)}`);
    name = source.folderName;
  } else {
    name = raw.trim();
  }
  // Whether the name keeps the Agent Skills rule is the strict report's (specDeviations).
  return name;
}

function readTools(value: unknown, warnings: string[]): NativeToolDeclaration[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    warnings.push("tools is not a list; ignored");
    return [];
  }
  const tools: NativeToolDeclaration[] = [];
  value.forEach((entry: unknown, index) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      warnings.push(`tools[${index}] is not a mapping; dropped`);
      return;
    }
    const tool = entry as Record<string, unknown>;
    if (typeof tool.name !== "string" || tool.name.trim() === "") {
      warnings.push(`tools[${index}] has no name; dropped`);
      return;
    }
    const name = tool.name.trim();
    const text = (key: "impl" | "description"): string | null => {
      const field = tool[key];
      if (field === undefined || field === null) return null;
      if (typeof field === "string") return field.trim();
      warnings.push(`tools[${index}] (${name}): ${key} is not a string; ignored`);
      return null;
    };
    let toolClass: SkillClass | null = null;
    if (tool.class !== undefined && tool.class !== null) {
      const read = readClassWord(tool.class);
      if (!read.known) warnings.push(`tools[${index}] (${name}): unknown class ${describe(tool.class)}; counted as dangerous`);
      toolClass = read.skillClass;
    }
    tools.push({ name, impl: text("impl"), class: toolClass, description: text("description") });
  });
  return tools;
}

function readEnvAllow(value: unknown, warnings: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    warnings.push("env_allow is not a list; ignored");
    return [];
  }
  const pattern = new RegExp(ENV_NAME_PATTERN);
  const names: string[] = [];
  for (const item of value) {
    if (typeof item === "string" && pattern.test(item)) names.push(item);
    else warnings.push(`env_allow: ignored ${describe(item)} (not an environment variable name)`);
  }
  return [...new Set(names)];
}

function readTimeout(value: unknown, fallback: number, warnings: string[]): number {
  if (value === undefined || value === null || value === 0) return fallback;
  if (typeof value === "number" && Number.isInteger(value) && value > 0 && value <= MAX_TIMEOUT_SECONDS) return value;
  warnings.push(`timeout_seconds ${describe(value)} is not a whole number of seconds from 1 to ${MAX_TIMEOUT_SECONDS}; using ${fallback}`);
  return fallback;
}

/**
 * Builds the NativeSkill of one parsed SKILL.md (DESIGN.md "Native skills", issue 5 point 1), loading
 * leniently and reporting strictly: every departure from the Agent Skills specification goes to
 * `specDeviations` (spec-deviations.ts); a missing or non-string name → the folder name with a warning;
 * description required (a non-empty string, trimmed);
 * when_to_use a string or null; class from `class`, else the highest of `tools[]` (synonyms read /
 * write / destructive; unknown words → warning, counted as dangerous), else null and the scripts run
 * as `mutating`; malformed tools[] entries dropped with a warning; env_allow and timeout_seconds as in
 * skill.json (bad values → warning, ignored / default); availability from metadata.os and the
 * requires keys (also under metadata.openclaw and its legacy names); `sandbox` parsed like skill.json's
 * (an invalid one → a warning and the skill unavailable); resources = every file of the folder
 * (listResources), and a path the instructions name that is no file of it → a warning; schema =
 * runScriptSchema of the skill's scripts. Returns the skill, or the reason it cannot be built (no usable description) with
 * the name it would have had. Never throws.
 */
export async function buildNativeSkill(
  source: NativeSkillSource,
): Promise<{ ok: true; skill: NativeSkill } | { ok: false; name: string; message: string }> {
  const warnings = [...source.warnings];
  const { frontmatter } = source;
  const name = readName(source, warnings);

  const rawDescription = frontmatter.description;
  if (rawDescription === undefined || rawDescription === null) return { ok: false, name, message: "description is missing (it is required)" };
  if (typeof rawDescription !== "string") return { ok: false, name, message: `description must be a string, not ${describe(rawDescription)}` };
  const description = rawDescription.trim();
  if (description === "") return { ok: false, name, message: "description is empty (it is required)" };

  let whenToUse: string | null = null;
  if (typeof frontmatter.when_to_use === "string" && frontmatter.when_to_use.trim() !== "") whenToUse = frontmatter.when_to_use.trim();
  else if (frontmatter.when_to_use !== undefined && frontmatter.when_to_use !== null && typeof frontmatter.when_to_use !== "string") {
    warnings.push(`when_to_use is not a string; ignored`);
  }

  const tools = readTools(frontmatter.tools, warnings);
  let declaredClass: SkillClass | null = null;
  if (frontmatter.class !== undefined && frontmatter.class !== null) {
    const read = readClassWord(frontmatter.class);
    if (!read.known) warnings.push(`unknown class ${describe(frontmatter.class)}; counted as dangerous`);
    declaredClass = read.skillClass;
  } else {
    declaredClass = highestClass(tools.flatMap((tool) => (tool.class ? [tool.class] : [])));
  }

  if (frontmatter.license !== undefined && frontmatter.license !== null && typeof frontmatter.license !== "string") {
    warnings.push("license is not a string");
  }
  const envAllow = readEnvAllow(frontmatter.env_allow, warnings);
  const timeoutSeconds = readTimeout(frontmatter.timeout_seconds, source.defaultTimeoutSeconds, warnings);
  const requirements = readHostRequirements(frontmatter, readMetadata(frontmatter, warnings), warnings);
  const sandbox = parseSandboxDeclaration(frontmatter.sandbox);
  if (!sandbox.ok) warnings.push(`${sandbox.message}; the skill cannot run until it is fixed`);
  const unavailable = sandbox.ok ? unavailableReason(requirements, source.probe) : `its sandbox declaration is invalid: ${sandbox.message}`;
  const resources = await listResources(source.skillDir, source.skillFile, path.basename(source.sourcePath), warnings, source.slices, source.folderEntries ?? null);
  // A SKILL.md deeper in the folder (a bundle's sub-skill) is not a skill of its own: said, not hidden.
  for (const nested of RESOURCE_LISTS.flatMap((list) => resources[list]).filter((file) => file.includes("/") && path.posix.basename(file).toLowerCase() === "skill.md")) {
    warnings.push(`${nested} is a SKILL.md inside this skill's folder: nested skills are not loaded (it is served as one of this skill's files)`);
  }
  const missing = missingInstructionPaths(source.body, [path.basename(source.sourcePath), ...RESOURCE_LISTS.flatMap((list) => resources[list])]);
  for (const named of missing.slice(0, MAX_MISSING_PATH_WARNINGS)) warnings.push(`the instructions name ${JSON.stringify(named)}, which is no file of the skill folder`);
  if (missing.length > MAX_MISSING_PATH_WARNINGS) warnings.push(`the instructions name ${missing.length - MAX_MISSING_PATH_WARNINGS} more paths that are no file of the skill folder`);

  return {
    ok: true,
    skill: {
      name,
      kind: "native",
      description,
      category: source.category,
      class: declaredClass ?? "mutating",
      schema: runScriptSchema(scriptNames(resources.scripts)),
      timeoutSeconds,
      envAllow,
      source: { root: source.root, path: source.sourcePath },
      available: unavailable === null,
      unavailableReason: unavailable,
      warnings,
      sandbox: sandbox.ok ? sandbox.declaration : DEFAULT_SANDBOX_DECLARATION,
      secretsNeeded: requirements.env,
      secretsGiven: [],
      whenToUse,
      tools,
      resources,
      specDeviations: specDeviations(frontmatter, source.folderName),
      declaredClass,
      frontmatter,
      instructions: source.body,
      skillDir: source.skillDir,
      skillFile: source.skillFile,
      skillSource: { file: source.skillFile, sha256: source.skillFileSha256 },
    },
  };
}
