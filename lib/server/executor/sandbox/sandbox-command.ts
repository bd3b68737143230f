import { closeSync, constants as fsConstants, lstatSync, openSync, readlinkSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { declarationRefusal, type SandboxHost } from "./host-capabilities";
import { readHostRootLayout } from "./host-root-layout";
import { findInheritableFds } from "./inherited-fds";
import type { SandboxDeclaration } from "./sandbox-declaration";
import { planMountArgs, type ResolvedBind } from "./sandbox-mounts";
import { absolutePathProblem, isPathWithin } from "./sandbox-paths";

/** One call to run in the sandbox; paths are as the sandbox sees them (absolute, normalised). */
export interface SandboxRequest {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Read-only binds of the call's private snapshot: the skill folder, maybe a lone entry file (descriptors from openBindFd). */
  binds: Array<{ fd: number; target: string }>;
  declaration: SandboxDeclaration;
  /** Always masked with an empty read-only tmpfs: the console's folder, its data, every skill root, the worker's state dir, /root, /home. */
  hiddenPaths: string[];
  /** e.g. /home/skill: a private writable tmpfs, also set as HOME when env has HOME. */
  home: string;
  /**
   * The roots every declared path must lie within by its REAL path (SKILL_SANDBOX_ALLOW_PATHS, as
   * sandboxAllowedRoots gives them), or null where the allowance does not cap the declaration (a
   * bundled skill with the allow-list unset). The console checks the declared text against the same
   * roots; this check is the one a symlink cannot get past.
   */
  allowedRoots: readonly string[] | null;
}

/**
 * What to hand to startProcess: `extraFds` become fd 3, 4, … — first the descriptors of
 * `request.binds`, then `openedFds`.
 */
export interface SandboxedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  extraFds: number[];
  /**
   * Descriptors this call opened (O_PATH, one per declared read and write path, bound by descriptor so
   * a path swapped after the check cannot change what is bound): the caller closes them once the
   * process has started, or when it does not start it.
   */
  openedFds: number[];
}

/**
 * The command line that runs `request` on `host` (DESIGN.md "Workers and the sandbox").
 *
 * Mode "bwrap": setpriv (a root worker drops to host.uid/gid, no groups, no_new_privs, empty
 * bounding set) then bwrap with new user (nested ones disabled), PID (not with hostPids), IPC, UTS and
 * cgroup namespaces, a new network namespace only when `network` is false (only `lo`), a new session,
 * --die-with-parent, all capabilities dropped; the mounts of planMountArgs (declared read and write
 * paths bound by descriptor: each opened at its real path, checked within `allowedRoots` and outside
 * the hidden paths on the descriptor itself); --chdir cwd. The environment is the request's env
 * (HOME, when present, becomes `home`), handed to setpriv and bwrap as THEIR environment, which bwrap
 * passes on: never as arguments (`--setenv NAME VALUE`), since a process's command line is readable by
 * every process of the host (/proc/<pid>/cmdline) and a skill secret must reach only its own call;
 * an environment is readable only by its own user and namespace. bwrap's PID 1 keeps exactly what the
 * skill gets, nothing of the worker's.
 * Mode "none": the command as it is, env as given, no descriptors (host paths; nothing is enforced).
 *
 * Throws Error when the call may not run: the host is unusable or refuses the declaration
 * (declarationRefusal); a declared path does not exist, resolves into /proc, to a device outside
 * /dev/, outside every root of `allowedRoots`, or to (or below) a hidden path — checked on real paths,
 * a symlink cannot smuggle a hidden folder in nor widen the allowance; a path of the request is not absolute and normalised; an env entry cannot be passed; this
 * process holds a descriptor without close-on-exec that the sandbox would inherit (see closeInheritableFds).
 * That last check is skipped with `forkedHere: false`, for a command a ProcessLauncher forks: the
 * launcher closed every such descriptor it inherited at its start and opens none, and this process's
 * own descriptors never reach its children.
 */
export function buildSandboxedCommand(host: SandboxHost, request: SandboxRequest, { forkedHere = true }: { forkedHere?: boolean } = {}): SandboxedCommand {
  if (host.mode === "bwrap" && forkedHere) {
    const leaking = findInheritableFds();
    if (leaking.length > 0) throw new Error(inheritableFdsProblem(leaking));
  }
  return assembleSandboxedCommand(host, request);
}

/** Why descriptors `fds` stop every sandboxed call (see findInheritableFds). */
export function inheritableFdsProblem(fds: readonly number[]): string {
  return `this process holds descriptors without close-on-exec (${fds.join(", ")}) that every sandbox would inherit; the worker must call closeInheritableFds() at start`;
}

/**
 * buildSandboxedCommand without the check of this process's descriptors: for the start-up probe,
 * which must tell whether bwrap works whatever the worker inherited (detectSandboxHost reports those
 * descriptors on their own). Same arguments, result and errors otherwise.
 */
export function assembleSandboxedCommand(host: SandboxHost, request: SandboxRequest): SandboxedCommand {
  const refusal = declarationRefusal(host, request.declaration);
  if (refusal !== null) throw new Error(refusal);
  if (host.mode === "none") return { command: request.command, args: [...request.args], env: { ...request.env }, extraFds: [], openedFds: [] };
  const bwrap = host.bwrapPath;
  if (bwrap === null) throw new Error("the sandbox has no bwrap to run");
  checkRequestPaths(request);
  const hidden = realHiddenPaths(request.hiddenPaths);
  const allowed = request.allowedRoots === null ? null : realAllowedRoots(request.allowedRoots);
  const { declaration } = request;
  const opened: number[] = [];
  // Declared descriptors follow the snapshot's: fd 3 + binds.length + k inside bwrap.
  const nextFd = () => 3 + request.binds.length + opened.length;
  let mountArgs: string[];
  try {
    const context = { hidden, allowed, opened, nextFd };
    mountArgs = planMountArgs({
      layout: readHostRootLayout(),
      read: resolveDeclared("read", declaration.read, context),
      write: resolveDeclared("write", declaration.write, context),
      devices: resolveDeclared("devices", declaration.devices, context),
      hidden: hidden.map((entry) => entry.real),
      hiddenFiles: hidden.filter((entry) => entry.file).map((entry) => entry.real),
      canReach: host.dropsPrivileges ? (source, file) => searchableBy(host.uid, host.gid, source, file) : undefined,
      openEmpty: () => {
        const fd = nextFd();
        opened.push(openSync("/dev/null", "r"));
        return fd;
      },
      home: request.home,
      hostPids: declaration.hostPids,
      snapshot: request.binds.map((bind, index) => ({ fd: 3 + index, target: bind.target })),
    }).args;
  } catch (error) {
    for (const fd of opened) closeSync(fd);
    throw error;
  }
  const bwrapArgs = [
    ...namespaceArgs(declaration),
    ...mountArgs,
    "--chdir",
    request.cwd,
    "--",
    request.command,
    ...request.args,
  ];
  const extraFds = [...request.binds.map((bind) => bind.fd), ...opened];
  const env = sandboxEnvironment(request);
  if (!host.dropsPrivileges) return { command: bwrap, args: bwrapArgs, env, extraFds, openedFds: opened };
  const setpriv = host.tools.setpriv;
  if (setpriv === null) {
    for (const fd of opened) closeSync(fd);
    throw new Error("setpriv (util-linux) is missing, so the sandbox cannot drop privileges");
  }
  const drop = [`--reuid=${host.uid}`, `--regid=${host.gid}`, "--clear-groups", "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all"];
  return { command: setpriv, args: [...drop, "--", bwrap, ...bwrapArgs], env, extraFds, openedFds: opened };
}

function namespaceArgs(declaration: SandboxDeclaration): string[] {
  return [
    "--unshare-user",
    "--disable-userns",
    ...(declaration.hostPids ? [] : ["--unshare-pid"]),
    "--unshare-ipc",
    "--unshare-uts",
    // Only hides the cgroup path (it names the worker and the call); a kernel without cgroup namespaces still runs calls.
    "--unshare-cgroup-try",
    ...(declaration.network ? [] : ["--unshare-net"]),
    "--new-session",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
  ];
}

/** The sandboxed process's environment: the request's, HOME pointed at the private home. Throws for an entry no environment can hold. */
function sandboxEnvironment(request: SandboxRequest): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.env)) {
    if (name === "" || name.includes("=") || name.includes("\0")) throw new Error(`environment variable name ${JSON.stringify(name)} cannot be passed`);
    if (value.includes("\0")) throw new Error(`environment variable ${name} holds a NUL character`);
    env[name] = name === "HOME" ? request.home : value;
  }
  return env;
}

function checkRequestPaths(request: SandboxRequest): void {
  const named: Array<[string, string]> = [
    ["command", request.command],
    ["cwd", request.cwd],
    ["home", request.home],
    ...request.binds.map((bind, index): [string, string] => [`binds[${index}].target`, bind.target]),
    ...request.hiddenPaths.map((hidden, index): [string, string] => [`hiddenPaths[${index}]`, hidden]),
  ];
  for (const [what, value] of named) {
    const problem = absolutePathProblem(value);
    if (problem !== null) throw new Error(`sandbox ${what} must be an absolute normalised path, not ${JSON.stringify(value)} (${problem})`);
  }
  for (const [what, value] of named.filter(([what]) => what !== "command" && what !== "cwd")) {
    if (value === "/") throw new Error(`sandbox ${what} may not be "/"`);
  }
}

/**
 * Whether `uid`:`gid` (no other groups: setpriv clears them) may search every folder from `source` down
 * to `file`'s own, by their mode bits as on the host (inside the sandbox the bind shows them as they
 * are). A folder that cannot be read counts as not searchable.
 */
function searchableBy(uid: number, gid: number, source: string, file: string): boolean {
  if (uid === 0) return true;
  let folder = source;
  const below = path.relative(source, path.dirname(file));
  const steps = below === "" ? [] : below.split(path.sep);
  for (let index = 0; ; index++) {
    let stat;
    try {
      stat = statSync(folder);
    } catch {
      return false;
    }
    const bit = stat.uid === uid ? 0o100 : stat.gid === gid ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) return false;
    if (index >= steps.length) return true;
    folder = path.join(folder, steps[index]!);
  }
}

/** Each hidden path with its real path and whether it is a file; one that does not exist has nothing to hide and is left out. */
function realHiddenPaths(paths: readonly string[]): Array<{ path: string; real: string; file: boolean }> {
  const entries: Array<{ path: string; real: string; file: boolean }> = [];
  for (const entry of paths) {
    const real = realPathOrNull(entry);
    if (real === null) continue;
    let file = false;
    try {
      file = !statSync(real).isDirectory();
    } catch {
      continue;
    }
    entries.push({ path: entry, real, file });
  }
  return entries;
}

/**
 * The allowed roots that exist at their own path (real path = the path as written). A root that does
 * not exist allows nothing, and neither does one that is, or passes through, a symlink: otherwise
 * anyone able to create it (an allowed path in a world-writable folder, not there yet) could point it
 * at `/` and allow everything. Operators list real paths.
 */
function realAllowedRoots(roots: readonly string[]): string[] {
  return roots.filter((root) => path.isAbsolute(root) && realPathOrNull(root) === path.resolve(root)).map((root) => path.resolve(root));
}

/**
 * Why a declared device cannot be bound, or null: it must be a character or block device node, and
 * every folder on its real path must be root's and writable by no one else — bwrap binds devices by
 * path (there is no --dev-bind-fd), so nobody but root may be able to swap what that path names
 * between this check and the bind (a symlink to `/` in /dev/shm would bind the host's root).
 */
function deviceProblem(real: string): string | null {
  let stats;
  try {
    stats = lstatSync(real);
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (!stats.isCharacterDevice() && !stats.isBlockDevice()) return "is not a device node";
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    const folder = statSync(dir);
    if (folder.uid !== 0 || (folder.mode & 0o022) !== 0) return `lies in ${dir}, which someone other than root can change`;
    if (dir === "/") return null;
  }
}

/** O_PATH on Linux (x86, arm, riscv): Node does not export it. */
const O_PATH = 0o10000000;

interface DeclaredContext {
  hidden: ReadonlyArray<{ path: string; real: string }>;
  allowed: readonly string[] | null;
  /** Descriptors opened so far (closed by the caller on any error). */
  opened: number[];
  /** The number the next opened descriptor has inside bwrap. */
  nextFd: () => number;
}

/**
 * Resolves declared paths to what bwrap binds. Read and write paths are opened O_PATH at their real
 * path and checked again on what the descriptor names (/proc/self/fd): a component swapped for a
 * symlink between the realpath and the open shows there, and what bwrap binds is the opened object
 * whatever happens to the path afterwards. Devices stay binds by path (bwrap has no device bind by
 * descriptor); /dev is the kernel's.
 */
function resolveDeclared(list: "read" | "write" | "devices", paths: readonly string[], context: DeclaredContext): ResolvedBind[] {
  return paths.map((target) => {
    const label = `sandbox.${list} ${JSON.stringify(target)}`;
    const real = realPathOrNull(target);
    if (real === null) throw new Error(`${label} does not exist on this host`);
    checkDeclaredSource(list, label, target, real, context);
    if (list === "devices") {
      const problem = deviceProblem(real);
      if (problem !== null) throw new Error(`${label} ${problem}${real === target ? "" : ` (it resolves to ${JSON.stringify(real)})`}: a device is bound by path, so only root may control it`);
      return { source: real, target };
    }
    let fd: number;
    try {
      fd = openSync(real, O_PATH | fsConstants.O_NOFOLLOW);
    } catch (error) {
      throw new Error(`${label} cannot be opened on this host: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    const bwrapFd = context.nextFd();
    context.opened.push(fd);
    let opened: string;
    try {
      opened = readlinkSync(`/proc/self/fd/${fd}`);
    } catch (error) {
      throw new Error(`${label} cannot be checked on this host: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (opened !== real) throw new Error(`${label} changed while it was checked (it resolved to ${JSON.stringify(real)}, then opened as ${JSON.stringify(opened)})`);
    checkDeclaredSource(list, label, target, opened, context);
    return { source: opened, target, fd: bwrapFd };
  });
}

/** The rules a declared path's real path must meet (see buildSandboxedCommand). */
function checkDeclaredSource(list: "read" | "write" | "devices", label: string, target: string, source: string, context: DeclaredContext): void {
  const via = source === target ? "" : ` (it resolves to ${JSON.stringify(source)})`;
  if (list === "devices" && (!isPathWithin(source, "/dev") || source === "/dev")) throw new Error(`${label} is not a device under /dev/${via}`);
  if (list !== "devices" && isPathWithin(source, "/proc")) throw new Error(`${label} lies under /proc${via}`);
  if (context.allowed !== null && !context.allowed.some((root) => isPathWithin(source, root))) {
    throw new Error(`${label} lies outside SKILL_SANDBOX_ALLOW_PATHS${via}: a symlink cannot widen what the operator allowed`);
  }
  for (const entry of context.hidden) {
    if (isPathWithin(target, entry.path) || isPathWithin(source, entry.real) || isPathWithin(target, entry.real)) {
      throw new Error(`${label} is inside ${JSON.stringify(entry.path)}, which the sandbox always hides${via}`);
    }
  }
}

function realPathOrNull(entry: string): string | null {
  try {
    return realpathSync.native(entry);
  } catch {
    return null;
  }
}
