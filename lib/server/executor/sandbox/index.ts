/**
 * The call sandbox (DESIGN.md "Workers and the sandbox"): what a skill may declare, what the host
 * offers, the bwrap command of one call, and the per-call cgroups that limit and contain it. A worker
 * uses it as: detectSandboxHost once (after closeInheritableFds and sweepStaleCgroups), then per call
 * declarationRefusal → CallCgroup.create → buildSandboxedCommand → wrapCommand → startProcess with
 * `extraFds` and `containment()` → limitHit → remove.
 */
export {
  DEFAULT_SANDBOX_DECLARATION,
  MAX_DECLARED_PATHS,
  declarationOutsideAllowance,
  describeDeclaration,
  parseSandboxAllowPaths,
  parseSandboxDeclaration,
  type SandboxDeclaration,
  type SandboxDeclarationParse,
} from "./sandbox-declaration";
export {
  declarationRefusal,
  detectSandboxHost,
  sandboxUnusableReason,
  type CgroupPlacement,
  type LimitEnforcement,
  type SandboxHost,
  type SandboxHostOptions,
  type SandboxLimits,
  type SandboxMode,
} from "./sandbox-host";
export { buildSandboxedCommand, type SandboxRequest, type SandboxedCommand } from "./sandbox-command";
export { CallCgroup, type CommandLine } from "./call-cgroup";
export { releaseCgroupRun, sweepStaleCgroups } from "./cgroup-sweep";
export { closeInheritableFds, findInheritableFds } from "./inherited-fds";
export { openBindFd } from "./bind-fd";
