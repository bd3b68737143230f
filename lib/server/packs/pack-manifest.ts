import path from "node:path";
import type { MarketplacePlugin } from "@/lib/types/pack";
import { entriesBelow, fileEntry, PackError, type PackEntry } from "./pack-tree";

/** The file at the top of a pack naming it (DESIGN.md "Skill packs"). */
export const PACK_MANIFEST_FILE = "pack.json";

/** Where a Claude Code marketplace lists its plugins, from the repository's top. */
export const MARKETPLACE_FILE = ".claude-plugin/marketplace.json";

/** A pack's name: lower-case letters, digits and `-`, starting with a letter or digit, at most 64 characters. */
export const PACK_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** What `pack.json` says: `name`, `version`, `description`. */
export interface PackManifest {
  name: string;
  version: string;
  description: string;
}

/** A pack's content once found: its manifest and its entries relative to the pack's folder. */
export interface LocatedPack {
  manifest: PackManifest;
  entries: PackEntry[];
}

function parseJson(entry: PackEntry | undefined, what: string): Record<string, unknown> {
  if (!entry || entry.kind !== "file") throw new PackError(`${what} is missing or not a regular file`);
  let value: unknown;
  try {
    value = JSON.parse(entry.bytes.toString("utf8"));
  } catch (error) {
    throw new PackError(`${what} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new PackError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * Checks `pack.json`'s fields (DESIGN.md "Skill packs"): `name` matching PACK_NAME_PATTERN, `version`
 * a string of 1–64 printable characters, `description` a string of at most 2,000 characters (optional).
 * Returns the manifest; throws PackError naming the field.
 */
export function readPackManifest(entry: PackEntry | undefined): PackManifest {
  const raw = parseJson(entry, PACK_MANIFEST_FILE);
  const { name, version, description } = raw;
  if (typeof name !== "string" || !PACK_NAME_PATTERN.test(name)) throw new PackError(`${PACK_MANIFEST_FILE}: name ${JSON.stringify(name)} must be lower-case letters, digits and '-' (at most 64), starting with a letter or digit`);
  if (typeof version !== "string" || !/^[\x21-\x7e][\x20-\x7e]{0,63}$/.test(version)) throw new PackError(`${PACK_MANIFEST_FILE}: version ${JSON.stringify(version)} must be a string of 1–64 printable characters, e.g. "1.2.0"`);
  if (description !== undefined && (typeof description !== "string" || description.length > 2000)) throw new PackError(`${PACK_MANIFEST_FILE}: description must be a string of at most 2000 characters`);
  return { name, version, description: typeof description === "string" ? description : "" };
}

function topEntry(entries: readonly PackEntry[], relative: string): PackEntry | undefined {
  return entries.find((entry) => entry.path === relative);
}

/** When every entry lies in one top folder (a GitHub tarball's `repo-sha/`), that folder; else null. Pure. */
function singleTopFolder(entries: readonly PackEntry[]): string | null {
  const tops = new Set(entries.map((entry) => entry.path.split("/")[0]));
  if (tops.size !== 1) return null;
  const [top] = tops;
  return top !== undefined && entries.some((entry) => entry.path === top && entry.kind === "dir") ? top : null;
}

/**
 * Finds the pack in staged content (DESIGN.md "Skill packs"): `pack.json` at the top, or in the one
 * folder everything lies in (an archive's wrapper folder). With `plugin`, the content must be a Claude
 * Code marketplace and the pack is made of that plugin (marketplacePack). Without it, a marketplace is
 * refused with the plugins it offers. Returns the manifest and the entries relative to the pack's
 * folder; throws PackError with the reason.
 */
export function locatePack(entries: readonly PackEntry[], plugin?: string): LocatedPack {
  const marketplace = topEntry(entries, MARKETPLACE_FILE);
  if (plugin !== undefined) {
    if (marketplace) return marketplacePack(entries, plugin);
  } else {
    const manifest = topEntry(entries, PACK_MANIFEST_FILE);
    if (manifest) return { manifest: readPackManifest(manifest), entries: [...entries] };
    if (marketplace) {
      const names = marketplacePlugins(entries).map((offered) => offered.name);
      throw new PackError(`this is a Claude Code marketplace, not a pack: name one of its plugins (${names.join(", ") || "none listed"}) as "plugin" to stage it as a pack`);
    }
  }
  const top = singleTopFolder(entries);
  if (top !== null) return locatePack(entriesBelow(entries, top), plugin);
  if (plugin !== undefined) throw new PackError(`no ${MARKETPLACE_FILE} at the top of the source, so there is no plugin ${JSON.stringify(plugin)} to stage`);
  throw new PackError(`no ${PACK_MANIFEST_FILE} at the top of the pack (nor ${MARKETPLACE_FILE}): a pack folder holds pack.json and its skill folders`);
}

interface PluginEntry {
  name: string;
  description: string;
  version: string | null;
  /** The plugin's folder relative to the repository, or null when its source is elsewhere. */
  folder: string | null;
  skills: string[] | null;
  unstageable: string | null;
}

function normalisedInside(relative: string, what: string): string {
  const normal = path.posix.normalize(relative.replace(/^\.\//, "")).replace(/\/+$/, "");
  if (normal === "..") throw new PackError(`${what} ${JSON.stringify(relative)} leads out of the repository`);
  if (normal.startsWith("../") || path.posix.isAbsolute(normal)) throw new PackError(`${what} ${JSON.stringify(relative)} leads out of the repository`);
  return normal === "." ? "" : normal;
}

function pluginEntries(entries: readonly PackEntry[]): PluginEntry[] {
  const raw = parseJson(topEntry(entries, MARKETPLACE_FILE), MARKETPLACE_FILE);
  if (!Array.isArray(raw.plugins)) throw new PackError(`${MARKETPLACE_FILE}: plugins must be an array`);
  const metadata = typeof raw.metadata === "object" && raw.metadata !== null ? (raw.metadata as Record<string, unknown>) : {};
  const pluginRoot = typeof metadata.pluginRoot === "string" ? metadata.pluginRoot : "";
  const marketplaceVersion = typeof metadata.version === "string" ? metadata.version : typeof raw.version === "string" ? raw.version : null;
  return raw.plugins.map((item, index): PluginEntry => {
    if (typeof item !== "object" || item === null) throw new PackError(`${MARKETPLACE_FILE}: plugins[${index}] must be an object`);
    const plugin = item as Record<string, unknown>;
    const name = typeof plugin.name === "string" ? plugin.name : "";
    const description = typeof plugin.description === "string" ? plugin.description : "";
    const version = typeof plugin.version === "string" ? plugin.version : marketplaceVersion;
    const skills = Array.isArray(plugin.skills) ? plugin.skills.filter((skill): skill is string => typeof skill === "string") : null;
    if (typeof plugin.source !== "string") {
      return { name, description, version, folder: null, skills, unstageable: "its source is another repository: stage that repository itself as a git pack" };
    }
    const source = plugin.source.startsWith("./") || plugin.source.startsWith("../") || pluginRoot === "" ? plugin.source : `${pluginRoot}/${plugin.source}`;
    return { name, description, version, folder: normalisedInside(source, `plugin ${name}'s source`), skills, unstageable: null };
  });
}

function isSkillFolder(entries: readonly PackEntry[], folder: string): boolean {
  return entries.some((entry) => entry.kind === "file" && (entry.path.toLowerCase() === `${folder}/skill.md`.toLowerCase() || entry.path === `${folder}/skill.json`));
}

/** The skill folders of a plugin, relative to the repository: its listed `skills`, else every `skills/<name>/` holding a SKILL.md or skill.json. */
function pluginSkillFolders(entries: readonly PackEntry[], plugin: PluginEntry): string[] {
  const base = plugin.folder ?? "";
  if (plugin.skills) return plugin.skills.map((skill) => normalisedInside(path.posix.join(base, skill), `plugin ${plugin.name}'s skill`));
  const skillsFolder = base === "" ? "skills" : `${base}/skills`;
  const folders = entries
    .filter((entry) => entry.kind === "dir" && entry.path.startsWith(`${skillsFolder}/`) && !entry.path.slice(skillsFolder.length + 1).includes("/"))
    .map((entry) => entry.path);
  return folders.filter((folder) => isSkillFolder(entries, folder));
}

/**
 * The plugins a Claude Code marketplace offers as packs (`.claude-plugin/marketplace.json`, found at the
 * top or in the one folder everything lies in): each with its skill folders and, when it cannot be
 * staged from this repository, why. Throws PackError when the marketplace file is unreadable.
 */
export function marketplacePlugins(entries: readonly PackEntry[]): MarketplacePlugin[] {
  if (!topEntry(entries, MARKETPLACE_FILE)) {
    const top = singleTopFolder(entries);
    if (top !== null) return marketplacePlugins(entriesBelow(entries, top));
    throw new PackError(`no ${MARKETPLACE_FILE} at the top of the source`);
  }
  return pluginEntries(entries).map((plugin) => ({
    name: plugin.name,
    description: plugin.description,
    version: plugin.version,
    skills: plugin.folder === null ? [] : pluginSkillFolders(entries, plugin),
    unstageable: plugin.unstageable ?? (PACK_NAME_PATTERN.test(plugin.name) ? null : `its name ${JSON.stringify(plugin.name)} is not a pack name (lower-case letters, digits and '-')`),
  }));
}

/**
 * A pack made of one marketplace plugin: each of its skill folders under its own name at the pack's
 * top, and a pack.json with the plugin's name, version (the plugin's, else the marketplace's, else
 * `0.0.0`) and description. Throws PackError when the plugin is not listed, cannot be staged from
 * here, has no skills, or two of its skill folders share a name.
 */
function marketplacePack(entries: readonly PackEntry[], pluginName: string): LocatedPack {
  const plugins = pluginEntries(entries);
  const plugin = plugins.find((candidate) => candidate.name === pluginName);
  if (!plugin) throw new PackError(`the marketplace has no plugin ${JSON.stringify(pluginName)} (it offers ${plugins.map((offered) => offered.name).join(", ") || "none"})`);
  if (plugin.unstageable) throw new PackError(`plugin ${pluginName} cannot be staged from this source: ${plugin.unstageable}`);
  if (!PACK_NAME_PATTERN.test(pluginName)) throw new PackError(`plugin ${JSON.stringify(pluginName)} is not a pack name (lower-case letters, digits and '-')`);
  const folders = pluginSkillFolders(entries, plugin);
  if (folders.length === 0) throw new PackError(`plugin ${pluginName} holds no skill folder (skills/<name>/SKILL.md)`);
  const packEntries: PackEntry[] = [];
  const names = new Set<string>();
  for (const folder of folders) {
    const name = path.posix.basename(folder);
    if (names.has(name)) throw new PackError(`plugin ${pluginName} has two skill folders named ${name}`);
    names.add(name);
    if (!entries.some((entry) => entry.path === folder && entry.kind === "dir")) throw new PackError(`plugin ${pluginName}'s skill folder ${folder} is not in the repository`);
    packEntries.push({ path: name, kind: "dir" });
    for (const entry of entriesBelow(entries, folder)) packEntries.push({ ...entry, path: `${name}/${entry.path}` });
  }
  const version = plugin.version && /^[\x21-\x7e][\x20-\x7e]{0,63}$/.test(plugin.version) ? plugin.version : "0.0.0";
  const manifest: PackManifest = { name: pluginName, version, description: plugin.description.slice(0, 2000) };
  packEntries.push(fileEntry(PACK_MANIFEST_FILE, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)));
  return { manifest, entries: packEntries };
}
