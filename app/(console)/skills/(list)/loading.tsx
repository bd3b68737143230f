import { SkillListSkeleton } from "@/components/skills/skill-list";

/** Route loading state of `/skills`: the list's own skeleton. */
export default function Loading() {
  return <SkillListSkeleton />;
}
