import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/class-names";
import type { WorkerSandbox } from "@/lib/types/worker";
import { describeLimits } from "./worker-limits";

/**
 * A sandbox mode as a badge: `bwrap` in green, `none` in amber with "unsandboxed" spelled out (DESIGN.md
 * "Sandbox": SKILL_SANDBOX=auto falls back to none with a warning). Shared by the Workers and call pages.
 */
export function SandboxModeBadge({ mode }: { mode: WorkerSandbox["mode"] }) {
  return mode === "bwrap" ? (
    <Badge tone="green" data-sandbox-mode="bwrap">
      bwrap
    </Badge>
  ) : (
    <Badge tone="amber" data-sandbox-mode="none">
      none — unsandboxed
    </Badge>
  );
}

/**
 * A worker's sandbox mode with what was asked for (`SKILL_SANDBOX=auto|bwrap|none`) and the uid its
 * sandboxed calls run as.
 */
export function WorkerSandboxMode({ sandbox }: { sandbox: WorkerSandbox }) {
  return (
    <span className="flex flex-wrap items-center gap-x-2 gap-y-1" data-testid="worker-sandbox-mode">
      <SandboxModeBadge mode={sandbox.mode} />
      <span className="text-xs text-zinc-500">
        SKILL_SANDBOX={sandbox.requested}
        {sandbox.mode === "bwrap" ? ` · uid ${sandbox.uid}` : null}
      </span>
    </span>
  );
}

/**
 * The limits in force on a worker, one per line (DESIGN.md "Limits": say which are enforced and how):
 * `memory 1024 MiB (cgroup-v1)`, `pids 256 (cgroup-v1)`, `cpu unlimited`; a limit set but not enforced
 * is amber. `kill` says how leftover processes are found and killed.
 */
export function WorkerLimits({ sandbox }: { sandbox: WorkerSandbox }) {
  return (
    <ul className="space-y-0.5" data-testid="worker-limits">
      {describeLimits(sandbox.limits).map((line) => (
        <li key={line.name} className={cx("font-mono text-[12.5px]", line.enforced ? "text-zinc-800" : "text-amber-800")} data-limit={line.name}>
          {line.text}
        </li>
      ))}
      <li className="text-xs text-zinc-500">leftovers killed by {sandbox.kill}</li>
    </ul>
  );
}
