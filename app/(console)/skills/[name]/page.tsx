import type { Metadata } from "next";
import { SkillDetail } from "@/components/skills/skill-detail";

type Props = { params: Promise<{ name: string }> };

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Page title: the skill's name. */
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { name } = await params;
  return { title: decodeName(name) };
}

/** `/skills/{name}`: a skill's details, test-run form and recent calls. */
export default async function Page({ params }: Props) {
  const { name } = await params;
  return <SkillDetail name={decodeName(name)} />;
}
