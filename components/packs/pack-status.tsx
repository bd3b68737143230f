import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { Pack, PackSkill, PackSource } from "@/lib/types/pack";

const STATUS: Record<Pack["status"], { tone: BadgeTone; label: string; title: string }> = {
  staged: { tone: "blue", label: "staged", title: "Reviewed, not enabled: none of its skills can run." },
  awaiting_approval: { tone: "amber", label: "awaiting approval", title: "It adds or changes a dangerous skill: a second admin must sign before it is enabled." },
  enabled: { tone: "green", label: "enabled", title: "Installed: its skills are registered and run." },
  disabled: { tone: "neutral", label: "disabled", title: "An earlier or uninstalled version: kept for rollback and history." },
  modified: { tone: "red", label: "modified on disk", title: "Files of the enabled version changed on disk: its changed skills do not run until a version is reviewed and enabled again." },
};

/** A pack version's status as a badge with its meaning on hover. */
export function PackStatusBadge({ status }: { status: Pack["status"] }) {
  const shown = STATUS[status];
  return (
    <Badge tone={shown.tone} dot title={shown.title} data-testid="pack-status" data-status={status}>
      {shown.label}
    </Badge>
  );
}

const CHANGE: Record<PackSkill["change"], BadgeTone> = { added: "blue", changed: "amber", removed: "red", same: "neutral" };

/** What enabling does to a skill (added, changed, removed, same) as a badge. */
export function ChangeBadge({ change }: { change: PackSkill["change"] }) {
  return (
    <Badge tone={CHANGE[change]} data-testid="pack-change" data-change={change}>
      {change}
    </Badge>
  );
}

/** Where a pack came from, in one line: a folder's path, a git URL at its ref and commit, an upload's size; and a marketplace plugin. */
export function describeSource(source: PackSource, commit: string | null): string {
  const plugin = source.plugin ? ` (plugin ${source.plugin})` : "";
  if (source.type === "folder") return `folder ${source.path}${plugin}`;
  if (source.type === "upload") return `upload of ${source.bytes.toLocaleString("en")} bytes${plugin}`;
  return `git ${source.url} at ${source.ref}${commit ? ` = ${commit.slice(0, 12)}` : ""}${plugin}`;
}
