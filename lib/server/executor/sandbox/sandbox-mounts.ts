import type { HostRootLayout } from "./host-root-layout";
import { isPathWithin, pathDepth, rebasePath } from "./sandbox-paths";

/**
 * A host path mounted at `target` inside the sandbox (`source` is its real path on the host); with
 * `fd`, bound from that descriptor as bwrap numbers it (--ro-bind-fd / --bind-fd), not from the path.
 */
export interface ResolvedBind {
  source: string;
  target: string;
  fd?: number;
}

/** Everything the mount plan needs; paths absolute and normalised, host paths already realpath'd. */
export interface MountPlanInput {
  layout: HostRootLayout;
  read: ResolvedBind[];
  write: ResolvedBind[];
  devices: ResolvedBind[];
  /** Real host paths to hide: folders (an empty tmpfs over them) and files (an empty read-only file over them). */
  hidden: string[];
  /** Which of `hidden` are files (a console secret's `_FILE`, the SQLite file): a tmpfs cannot cover a file. */
  hiddenFiles?: readonly string[];
  /**
   * Opens a descriptor that reads nothing (the host's /dev/null) for bwrap to copy into an empty file
   * over a hidden file, and returns its number as bwrap sees it. Required when `hiddenFiles` is not empty.
   */
  openEmpty?: () => number;
  /**
   * Whether the sandbox's user can reach `file` from the bind of `source` (search permission on every
   * folder from `source` down to the file's own): bwrap cannot put an empty file over one it cannot
   * reach ("Can't create file … Permission denied"), and need not, since the call cannot read it either.
   * Absent: always.
   */
  canReach?: (source: string, file: string) => boolean;
  home: string;
  hostPids: boolean;
  /** The call's snapshot, as bwrap sees the descriptors (3, 4, …). */
  snapshot: Array<{ fd: number; target: string }>;
}

type MountOp =
  | { kind: "bind"; flag: "--ro-bind" | "--bind" | "--dev-bind"; source: string; target: string; fd?: number; rank: number }
  | { kind: "symlink"; link: string; target: string; rank: number }
  | { kind: "fresh"; flag: "--proc" | "--dev" | "--tmpfs"; target: string; rank: number }
  | { kind: "empty"; fd: number; target: string; rank: number };

/** Same-path order: the sandbox's own mounts, then declared binds over them, then hiding masks over both. */
const RANK = { system: 0, declared: 1, mask: 2 } as const;

/**
 * The bwrap mount arguments of one call, in an order where each mount lands where it should
 * (DESIGN.md "Workers and the sandbox"): a mount hides whatever an earlier one put at or below its
 * target, so mounts go outermost first (by depth), and at the same path system < declared < mask.
 *
 * - system: /usr and /etc read-only, /bin /sbin /lib* as on the host, resolv.conf's outside target,
 *   a new /proc (or the host's read-only with hostPids, whose PID namespace a new procfs may not
 *   show), a new /dev, tmpfs /tmp and home; a symlink is left out where a declared bind already
 *   brings the host's own one (bwrap refuses to create a symlink over an existing entry).
 * - declared: read --ro-bind, write --bind, devices --dev-bind, each from its real path (read and
 *   write from their descriptor, --ro-bind-fd / --bind-fd, when the bind carries one).
 * - masks: an empty tmpfs over each hidden folder that a host bind makes visible (a hidden path under
 *   the sandbox's own /tmp is not there to hide), remounted read-only at the end; an empty read-only
 *   file over each hidden file (--ro-bind-data from a descriptor of /dev/null: /dev/null itself cannot be bound, bwrap's binds are nodev), so a
 *   key file under /etc reads empty.
 * - then the snapshot binds (--ro-bind-fd), which may lie inside a mask: bwrap creates their mount
 *   points in the still-writable tmpfs; then the masks' --remount-ro and `--remount-ro /`.
 *
 * Returns the arguments and the mask targets. Pure.
 */
export function planMountArgs(input: MountPlanInput): { args: string[]; masks: string[] } {
  const declared: MountOp[] = [
    ...input.read.map((bind) => ({ kind: "bind", flag: "--ro-bind", ...bind, rank: RANK.declared }) as const),
    ...input.write.map((bind) => ({ kind: "bind", flag: "--bind", ...bind, rank: RANK.declared }) as const),
    ...input.devices.map((bind) => ({ kind: "bind", flag: "--dev-bind", ...bind, rank: RANK.declared }) as const),
  ];
  const system = systemOps(input).filter((op) => op.kind !== "symlink" || !declared.some((bind) => isPathWithin(op.target, bind.target)));
  const ops = [...system, ...declared];
  const files = new Set(input.hiddenFiles ?? []);
  const masks = maskTargets(ops, input.hidden.filter((entry) => !files.has(entry)));
  const fileMasks = maskTargets(ops, [...files], input.canReach).filter((target) => !masks.some((mask) => isPathWithin(target, mask)));
  const ordered: MountOp[] = [
    ...ops,
    ...masks.map((target) => ({ kind: "fresh", flag: "--tmpfs", target, rank: RANK.mask }) as const),
    ...fileMasks.map((target): MountOp => {
      if (!input.openEmpty) throw new Error("the sandbox cannot hide a file without a descriptor to empty it from");
      return { kind: "empty", fd: input.openEmpty(), target, rank: RANK.mask };
    }),
  ]
    .map((op, index) => ({ op, index }))
    .sort((a, b) => pathDepth(a.op.target) - pathDepth(b.op.target) || a.op.rank - b.op.rank || a.index - b.index)
    .map(({ op }) => op);
  const args = ordered.flatMap(opArgs);
  for (const bind of input.snapshot) args.push("--ro-bind-fd", String(bind.fd), bind.target);
  for (const target of masks) args.push("--remount-ro", target);
  args.push("--remount-ro", "/");
  return { args, masks: [...masks, ...fileMasks].sort() };
}

function systemOps(input: MountPlanInput): MountOp[] {
  const rank = RANK.system;
  const ops: MountOp[] = [{ kind: "bind", flag: "--ro-bind", source: "/usr", target: "/usr", rank }];
  for (const entry of input.layout.systemEntries) {
    if ("symlink" in entry) ops.push({ kind: "symlink", link: entry.symlink, target: entry.path, rank });
    else ops.push({ kind: "bind", flag: "--ro-bind", source: entry.folder, target: entry.path, rank });
  }
  ops.push({ kind: "bind", flag: "--ro-bind", source: "/etc", target: "/etc", rank });
  const resolv = input.layout.resolvConfTarget;
  if (resolv !== null) ops.push({ kind: "bind", flag: "--ro-bind", source: resolv, target: resolv, rank });
  ops.push(
    input.hostPids
      ? { kind: "bind", flag: "--ro-bind", source: "/proc", target: "/proc", rank }
      : { kind: "fresh", flag: "--proc", target: "/proc", rank },
  );
  ops.push({ kind: "fresh", flag: "--dev", target: "/dev", rank });
  ops.push({ kind: "fresh", flag: "--tmpfs", target: "/tmp", rank });
  ops.push({ kind: "fresh", flag: "--tmpfs", target: input.home, rank });
  return ops;
}

/**
 * Where each hidden path shows inside the sandbox: below a host bind whose source contains it, at
 * the rebased place, unless a deeper (or later, same-path) mount covers that place. A mask inside
 * another mask is dropped: the outer one already hides it. With `canReach` (files only), a place the
 * sandbox's user cannot reach through that bind is left out.
 */
function maskTargets(ops: readonly MountOp[], hidden: readonly string[], canReach?: (source: string, file: string) => boolean): string[] {
  const targets = new Set<string>();
  for (const hiddenPath of hidden) {
    for (const op of ops) {
      if (op.kind !== "bind" || !isPathWithin(hiddenPath, op.source)) continue;
      const target = rebasePath(hiddenPath, op.source, op.target);
      if (coveringOp(ops, target) === op && (!canReach || canReach(op.source, hiddenPath))) targets.add(target);
    }
  }
  const all = [...targets];
  return all.filter((target) => !all.some((other) => other !== target && isPathWithin(target, other))).sort();
}

/** The mount that decides what is at `target`: the deepest one at or above it, the later one on a tie. */
function coveringOp(ops: readonly MountOp[], target: string): MountOp | null {
  let best: MountOp | null = null;
  for (const op of ops) {
    if (!isPathWithin(target, op.target)) continue;
    if (best === null || pathDepth(op.target) > pathDepth(best.target) || (pathDepth(op.target) === pathDepth(best.target) && op.rank >= best.rank)) {
      best = op;
    }
  }
  return best;
}

function opArgs(op: MountOp): string[] {
  switch (op.kind) {
    case "bind":
      if (op.fd !== undefined && op.flag !== "--dev-bind") return [`${op.flag}-fd`, String(op.fd), op.target];
      return [op.flag, op.source, op.target];
    case "symlink":
      return ["--symlink", op.link, op.target];
    case "fresh":
      return [op.flag, op.target];
    case "empty":
      return ["--ro-bind-data", String(op.fd), op.target];
  }
}
