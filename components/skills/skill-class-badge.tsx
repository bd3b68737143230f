import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { SkillClass } from "@/lib/types/skill";

const TONE: Record<SkillClass, BadgeTone> = { safe: "green", mutating: "amber", dangerous: "red" };

const MEANING: Record<SkillClass, string> = {
  safe: "Read-only: runs without approval.",
  mutating: "Creates or updates state (reversible): needs one person's confirmation.",
  dangerous: "Irreversible (deletes, restarts, arbitrary exec): needs two approvers.",
};

/** The class of a skill as a coloured badge (safe green, mutating amber, dangerous red) with its meaning as a tooltip. */
export function SkillClassBadge({ skillClass }: { skillClass: SkillClass }) {
  return (
    <Badge tone={TONE[skillClass]} dot title={MEANING[skillClass]} data-class={skillClass}>
      {skillClass}
    </Badge>
  );
}
