import { execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import type { PackSource } from "@/lib/types/pack";
import { pathsOverlap } from "../skills/allowlist-roots";
import { checkPackEntries, PackError, PackTooLargeError, readFolderEntries, readTarEntries, withoutGitFolders, type PackEntry, type PackLimits } from "./pack-tree";

const run = promisify(execFile);

/** How long one git command of a staging may take, in ms (a clone of a big remote repository is refused past it). */
export const GIT_TIMEOUT_MS = 120_000;

/** A source as a staging request names it (DESIGN.md "Skill packs"); an upload carries its bytes as a stream. */
export type PackSourceRequest =
  | { type: "folder"; path: string; plugin?: string }
  | { type: "git"; url: string; ref: string; plugin?: string }
  | { type: "upload"; body: Readable; plugin?: string };

/** A source's content as read: its entries, the source as recorded, the commit (git) and whether it is local. */
export interface SourceContent {
  entries: PackEntry[];
  source: PackSource;
  commit: string | null;
  /** A local folder, an upload, or a git repository named by a path or file:// URL: unsigned allowed by default. */
  local: boolean;
}

/** Folders a pack may never be staged from, nor contain: the console's own files and the kernel's. */
export interface ForbiddenFolders {
  paths: readonly string[];
}

/**
 * Reads a local folder as a pack's content (readFolderEntries: bounded, links kept not followed, no
 * device). The path must be absolute and a folder that neither lies in nor holds one of `forbidden`
 * (the console's data, install folder, packs folder, /proc, /sys, /dev: staging one of them would copy
 * the console's secrets into a pack and its review). Throws PackError with the reason.
 */
async function readFolderSource(given: string, limits: PackLimits, forbidden: ForbiddenFolders): Promise<SourceContent & { real: string }> {
  if (!path.isAbsolute(given)) throw new PackError(`source.path ${JSON.stringify(given)} must be an absolute path`);
  let real: string;
  try {
    real = await fs.realpath(given);
    if (!(await fs.stat(real)).isDirectory()) throw new PackError(`${given} is not a folder`);
  } catch (error) {
    if (error instanceof PackError) throw error;
    throw new PackError(`${given} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  await refuseForbidden(real, given, forbidden);
  return { entries: await readFolderEntries(real, limits), source: { type: "folder", path: real }, commit: null, local: true, real };
}

/**
 * Refuses a local source (its real path, or the path as given when it cannot be resolved) that is or
 * holds one of the console's own folders, each compared as configured and as its real path (a data
 * folder reached through a link is still the data folder). Throws PackError.
 */
async function refuseForbidden(local: string, given: string, forbidden: ForbiddenFolders): Promise<void> {
  const real = await fs.realpath(local).catch(() => path.resolve(local));
  for (const folder of forbidden.paths) {
    const forms = [folder, await fs.realpath(folder).catch(() => folder)];
    if (forms.some((form) => pathsOverlap(path.resolve(form), real))) throw new PackError(`${given} is or holds ${folder}, which the console keeps to itself: a pack cannot be staged from it`);
  }
}

/** How deep alternates of alternates are followed when a local repository's object stores are checked. */
const ALTERNATES_DEPTH = 5;

/**
 * Refuses a local git repository whose git folder or object stores lie in the console's own folders:
 * a `.git` file (`gitdir: …`), a worktree's common folder, or `objects/info/alternates` (followed
 * ALTERNATES_DEPTH deep) can make a clone of an innocent-looking path read the console's own
 * repository. Asks git where the folders are (`rev-parse --absolute-git-dir --git-common-dir`, no
 * hook or configuration of ours runs); a path git cannot read as a repository is refused with git's
 * reason. Throws PackError.
 */
async function refuseForbiddenGitStore(local: string, given: string, forbidden: ForbiddenFolders): Promise<void> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skill-console-pack-git-"));
  try {
    let dirs: string[];
    try {
      dirs = (await git(["rev-parse", "--absolute-git-dir", "--git-common-dir"], local, home)).split("\n").map((line) => path.resolve(local, line.trim()));
    } catch (error) {
      throw new PackError(`${given} is not a git repository this console can read (${(error as Error).message})`);
    }
    const stores: string[] = [];
    const visit = async (objects: string, depth: number) => {
      stores.push(objects);
      if (depth >= ALTERNATES_DEPTH) return;
      const listed = await fs.readFile(path.join(objects, "info", "alternates"), "utf8").catch(() => "");
      for (const line of listed.split("\n").map((entry) => entry.trim()).filter((entry) => entry !== "" && !entry.startsWith("#"))) {
        await visit(path.resolve(objects, line), depth + 1);
      }
    };
    for (const dir of new Set(dirs)) await visit(path.join(dir, "objects"), 0);
    for (const folder of [...new Set(dirs), ...stores]) await refuseForbidden(folder, given, forbidden);
  } finally {
    await fs.rm(home, { recursive: true, force: true });
  }
}

/** Whether a git URL names a repository on this host (a path or a file:// URL). Pure. */
export function isLocalGitUrl(url: string): boolean {
  return path.isAbsolute(url) || url.startsWith("file://");
}

/** Refuses a git URL or ref that git could read as an option, and URL schemes other than https, http, ssh, git and file (`ext::` runs commands). */
function checkGitRequest(url: string, ref: string): void {
  if (url === "" || url.startsWith("-") || /[\s\u0000-\u001f]/.test(url)) throw new PackError(`source.url ${JSON.stringify(url)} is not a git URL`);
  const scp = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/]/.test(url);
  if (!isLocalGitUrl(url) && !scp && !/^(https?|ssh|git):\/\//.test(url)) throw new PackError(`source.url ${JSON.stringify(url)} must be an https, http, ssh, git or file URL, or an absolute path`);
  if (ref === "" || ref.startsWith("-") || !/^[A-Za-z0-9._/@{}^~+-]{1,255}$/.test(ref)) throw new PackError(`source.ref ${JSON.stringify(ref)} is not a branch, tag or commit`);
}

function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    NODE_ENV: "production",
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ALLOW_PROTOCOL: "file:https:http:ssh:git",
    GIT_SSH_COMMAND: "ssh -o BatchMode=yes",
    LANG: "C",
  };
}

async function git(args: string[], cwd: string, home: string): Promise<string> {
  try {
    const { stdout } = await run("git", args, { cwd, env: gitEnv(home), timeout: GIT_TIMEOUT_MS, maxBuffer: 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const failure = error as { stderr?: string; code?: string | number; killed?: boolean };
    if (failure.code === "ENOENT") throw new PackError("git is not installed on the console's host (apt-get install git)");
    if (failure.killed) throw new PackError(`git ${args[0]} took longer than ${GIT_TIMEOUT_MS / 1000} s`);
    const said = (failure.stderr ?? "").trim().split("\n").filter((line) => line.trim() !== "").slice(-2).join(" ");
    throw new PackError(`git ${args[0]} failed: ${said || (error as Error).message}`);
  }
}

/**
 * Reads a git repository at a ref (DESIGN.md "Skill packs": a pinned commit; a branch or tag is resolved
 * to its commit at staging and recorded): a clone without checkout into a private temporary folder
 * (no hooks run, no user or system git configuration, no `ext::` transport, no prompt), the ref resolved
 * as given, as a remote branch, or as a tag, then `git archive` of that commit read by readTarEntries
 * (the same checks as an upload). The clone is removed. Throws PackError with git's reason (a ref
 * that does not exist names the ref).
 */
async function readGitSource(url: string, ref: string, limits: PackLimits): Promise<SourceContent> {
  checkGitRequest(url, ref);
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), "skill-console-pack-git-"));
  try {
    const clone = path.join(temp, "repository");
    await git(["clone", "--quiet", "--no-checkout", "--", url, clone], temp, temp);
    let commit: string | null = null;
    for (const candidate of [ref, `origin/${ref}`, `refs/tags/${ref}`]) {
      try {
        commit = await git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${candidate}^{commit}`], clone, temp);
        if (/^[0-9a-f]{40,64}$/.test(commit)) break;
        commit = null;
      } catch {
        commit = null;
      }
    }
    if (commit === null) throw new PackError(`git ref ${JSON.stringify(ref)} does not exist in ${url} (not a branch, tag or commit there)`);
    const archive = spawn("git", ["archive", "--format=tar", commit], { cwd: clone, env: gitEnv(temp), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    archive.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => archive.on("close", (code) => resolve(code)));
    let entries: PackEntry[];
    try {
      entries = await readTarEntries(archive.stdout, limits, false);
    } finally {
      if (archive.exitCode === null) archive.kill("SIGKILL");
    }
    const code = await exited;
    if (code !== 0) throw new PackError(`git archive failed: ${stderr.trim() || `exit ${code}`}`);
    return { entries, source: { type: "git", url, ref }, commit, local: isLocalGitUrl(url) };
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/**
 * Reads a staging request's source into a pack's content (DESIGN.md "Skill packs"): a local folder, a
 * git repository at a ref, or a `.tar.gz` upload (read as it streams: bounded, no hard link, device or
 * FIFO). Returns the entries, the source as recorded, the commit,
 * and whether the source is local. Every entry is checked (checkPackEntries) as read. Throws PackError
 * with the reason.
 */
export async function readPackSource(request: PackSourceRequest, limits: PackLimits, forbidden: ForbiddenFolders): Promise<SourceContent> {
  if (request.type === "git" && isLocalGitUrl(request.url)) {
    const local = request.url.replace(/^file:\/\//, "");
    await refuseForbidden(local, request.url, forbidden);
    await refuseForbiddenGitStore(local, request.url, forbidden);
  }
  const content = await readSource(request, limits, forbidden);
  // Checked as read, before anything is found in it or re-rooted: a path that escapes is refused,
  // never quietly moved back inside by taking off a wrapper folder. A repository's own data (`.git`)
  // is never part of a pack, whatever the source (a folder's reader skips it too).
  return { ...content, entries: checkPackEntries(withoutGitFolders(content.entries), limits) };
}

async function readSource(request: PackSourceRequest, limits: PackLimits, forbidden: ForbiddenFolders): Promise<SourceContent> {
  const plugin = request.plugin === undefined ? {} : { plugin: request.plugin };
  if (request.type === "folder") {
    const read = await readFolderSource(request.path, limits, forbidden);
    return { entries: read.entries, source: { type: "folder", path: read.real, ...plugin }, commit: null, local: true };
  }
  if (request.type === "git") {
    const read = await readGitSource(request.url, request.ref, limits);
    return { ...read, source: { ...read.source, ...plugin } as PackSource };
  }
  let bytes = 0;
  request.body.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limits.maxBytes) request.body.destroy(new PackTooLargeError(`the upload is larger than ${limits.maxBytes} bytes (PACK_MAX_BYTES)`));
  });
  const entries = await readTarEntries(request.body, limits, true);
  return { entries, source: { type: "upload", bytes, ...plugin }, commit: null, local: true };
}
