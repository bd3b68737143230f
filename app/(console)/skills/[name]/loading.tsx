import { SkillDetailSkeleton } from "@/components/skills/skill-detail";

/** Route loading state of `/skills/{name}`: the skill page's skeleton. */
export default function Loading() {
  return <SkillDetailSkeleton />;
}
