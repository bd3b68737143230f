"use client";

import Link from "next/link";
import { AdminOnly } from "@/components/layout/admin-only";
import { PageHeader } from "@/components/layout/page-header";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { DateTime } from "@/components/ui/date-time";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { SkeletonRows } from "@/components/ui/skeleton";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { usePacks } from "@/lib/client/use-packs";
import type { Pack } from "@/lib/types/pack";
import { PackActions } from "./pack-actions";
import { describeSource, PackStatusBadge } from "./pack-status";
import { StagePackForm } from "./stage-pack-form";

/** Placeholder of the packs table while it loads. */
export function PacksSkeleton() {
  return (
    <Card>
      <SkeletonRows rows={5} className="p-4" />
    </Card>
  );
}

/** The order of the table: by pack name, the installed version first, then newest first. */
function ordered(packs: readonly Pack[]): Pack[] {
  const rank = (pack: Pack) => (pack.status === "enabled" || pack.status === "modified" ? 0 : pack.status === "awaiting_approval" ? 1 : pack.status === "staged" ? 2 : 3);
  return [...packs].sort((a, b) => (a.name !== b.name ? (a.name < b.name ? -1 : 1) : rank(a) - rank(b) || (a.stagedAt < b.stagedAt ? 1 : -1)));
}

function PacksTable({ packs }: { packs: Pack[] }) {
  return (
    <Table caption="Skill packs">
      <TableHead>
        <Th>Pack</Th>
        <Th>Version</Th>
        <Th>Status</Th>
        <Th>Skills</Th>
        <Th>Source</Th>
        <Th>Staged</Th>
        <Th>
          <span className="sr-only">Actions</span>
        </Th>
      </TableHead>
      <TableBody>
        {ordered(packs).map((pack) => {
          const skills = pack.skills.filter((skill) => skill.change !== "removed");
          const dangerous = skills.filter((skill) => skill.class === "dangerous").length;
          return (
            <Tr key={pack.id} data-testid="pack-row" data-pack={pack.name} data-version={pack.version} data-status={pack.status}>
              <Td label="Pack" className="min-w-40">
                <Link href={`/packs/${pack.id}`} className="font-mono text-[12.5px] font-medium text-blue-700 hover:underline" aria-label={`Review ${pack.name} ${pack.version}`}>
                  {pack.name}
                </Link>
                {pack.description ? <span className="block text-xs text-zinc-500">{pack.description}</span> : null}
              </Td>
              <Td label="Version" className="text-xs whitespace-nowrap">
                <span className="font-mono">{pack.version}</span>
                <span className="block font-mono text-[11px] text-zinc-500" title={`digest ${pack.digest}`}>
                  {pack.digest.slice(0, 8)}
                </span>
              </Td>
              <Td label="Status" className="whitespace-nowrap">
                <PackStatusBadge status={pack.status} />
              </Td>
              <Td label="Skills" className="text-xs whitespace-nowrap">
                {skills.length} skill{skills.length === 1 ? "" : "s"}
                {dangerous > 0 ? (
                  <Badge tone="red" className="ml-1.5">
                    {dangerous} dangerous
                  </Badge>
                ) : null}
              </Td>
              <Td label="Source" className="max-w-72 min-w-40 text-xs break-words text-zinc-600">
                {describeSource(pack.source, pack.commit)}
                <span className="block">{pack.signedBy ? <span className="text-emerald-700">signed by {pack.signedBy}</span> : <span className="text-zinc-500">unsigned</span>}</span>
              </Td>
              <Td label="Staged" className="text-xs whitespace-nowrap">
                <span className="block text-zinc-800">{pack.stagedBy}</span>
                <DateTime iso={pack.stagedAt} className="text-zinc-500" />
              </Td>
              <Td className="text-right">
                <PackActions pack={pack} />
              </Td>
            </Tr>
          );
        })}
      </TableBody>
    </Table>
  );
}

/**
 * The Packs page body (DESIGN.md "Skill packs"; admins only): the form that stages a pack, and every
 * version — installed, waiting for a second admin, staged, earlier — with its status (a pack changed on
 * disk since it was enabled shows as modified), skills, source, signer, who staged it, and what may be
 * done with it. Each name links to the version's review.
 */
export function PacksPage() {
  return (
    <AdminOnly
      header={
        <PageHeader
          title="Packs"
          description="Sets of skills installed, updated, rolled back and removed as one unit. Every pack is reviewed before it runs; one that adds or changes a dangerous skill needs a second admin."
        />
      }
      skeleton={<PacksSkeleton />}
      refusal="Only an admin stages, reviews and enables skill packs."
    >
      <PacksPageBody />
    </AdminOnly>
  );
}

/** What an admin sees of the Packs page below its header. */
function PacksPageBody() {
  const packs = usePacks();
  return (
    <>
      <div className="space-y-4">
        <StagePackForm />
        {packs.isPending ? (
          <PacksSkeleton />
        ) : packs.isError ? (
          <LoadFailed title="Could not load the packs" error={packs.error} onRetry={() => void packs.refetch()} />
        ) : packs.data.length === 0 ? (
          <EmptyState title="No packs yet">
            A pack is a folder with a <code className="font-mono">pack.json</code> (name, version, description) and skill folders of either kind. Stage one from a folder, a git
            repository at a pinned commit, or a .tar.gz; review every skill and file; then enable it.
          </EmptyState>
        ) : (
          <Card className="overflow-hidden">
            <PacksTable packs={packs.data} />
          </Card>
        )}
      </div>
    </>
  );
}
