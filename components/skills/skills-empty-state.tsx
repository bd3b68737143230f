import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";

/**
 * Shown when no allow-list root gave any skill: explains where the loader looks
 * (ONGRID_SKILLS_EXTERNAL_DIRS, else the bundled skills/ folder) and links to the loader report.
 */
export function SkillsEmptyState() {
  return (
    <EmptyState
      title="No skills registered"
      actions={
        <Link href="/loader" className="inline-flex h-8 items-center rounded-md bg-zinc-900 px-3 text-sm font-medium text-white hover:bg-zinc-700">
          Open the loader report
        </Link>
      }
    >
      <p>
        The loader walks every absolute directory listed in{" "}
        <code className="rounded bg-zinc-100 px-1 font-mono text-[12px] text-zinc-800">ONGRID_SKILLS_EXTERNAL_DIRS</code>{" "}
        (separated by <code className="font-mono">:</code> or <code className="font-mono">,</code>) for{" "}
        <code className="font-mono text-[12px]">skill.json</code> manifests. When it is unset, the bundled{" "}
        <code className="font-mono text-[12px]">skills/</code> folder is the only root.
      </p>
      <p className="mt-2">The loader report lists each root, and every manifest it skipped or failed to load, with the reason.</p>
    </EmptyState>
  );
}
