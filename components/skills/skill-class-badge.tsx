import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { SkillClass } from "@/lib/types/skill";

const TONE: Record<SkillClass, BadgeTone> = { safe: "green", mutating: "amber", dangerous: "red" };

const MEANING: Record<SkillClass, string> = {
  safe: "Read-only: runs without approval.",
  mutating: "Creates or updates state (reversible): needs one person's confirmation.",
  dangerous: "Irreversible (deletes, restarts, arbitrary exec): needs two approvers.",
};

/**
 * The class of a skill as a coloured badge (safe green, mutating amber, dangerous red) with its meaning
 * as a tooltip. `label` names what the class is of ("read", "scripts") when a skill has two; `title`
 * replaces the tooltip.
 */
export function SkillClassBadge({ skillClass, label, title }: { skillClass: SkillClass; label?: string; title?: string }) {
  return (
    <Badge tone={TONE[skillClass]} dot title={title ?? MEANING[skillClass]} data-class={skillClass}>
      {label ? `${label}: ${skillClass}` : skillClass}
    </Badge>
  );
}

/** True when a skill is a native one with no scripts: reading it is all it does (DESIGN.md "Native skills": reading is safe). */
export function isReadOnlyNative(skill: { kind: string; resources?: { scripts: string[] } }): boolean {
  return skill.kind === "native" && (skill.resources?.scripts.length ?? 0) === 0;
}
