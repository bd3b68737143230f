import type { Metadata } from "next";
import { Suspense } from "react";
import { SkillListSkeleton } from "@/components/skills/skill-list";
import { SkillsPage } from "@/components/skills/skills-page";

/** Page title. */
export const metadata: Metadata = { title: "Skills" };

/** `/skills`: every skill by category, with a filter (the filter reads the URL, hence the Suspense). */
export default function Page() {
  return (
    <Suspense fallback={<SkillListSkeleton />}>
      <SkillsPage />
    </Suspense>
  );
}
