"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import { DescriptionList } from "@/components/ui/description-list";
import { DateTime } from "@/components/ui/date-time";
import { SkeletonRows } from "@/components/ui/skeleton";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { ApiError } from "@/lib/client/api-error";
import { useIdentity } from "@/lib/client/identity";
import { usePack } from "@/lib/client/use-packs";
import type { Pack, PackFileDiff, PackReview, PackSkill } from "@/lib/types/pack";
import { DiffBlock } from "./diff-block";
import { PackActions } from "./pack-actions";
import { ChangeBadge, describeSource, PackStatusBadge } from "./pack-status";

const CLASS_TONE = { safe: "green", mutating: "amber", dangerous: "red" } as const;

function sandboxText(skill: PackSkill): string {
  const parts = [skill.sandbox.network ? "network: on" : "network: off"];
  if (skill.sandbox.read.length > 0) parts.push(`reads ${skill.sandbox.read.join(", ")}`);
  if (skill.sandbox.write.length > 0) parts.push(`writes ${skill.sandbox.write.join(", ")}`);
  if (skill.sandbox.devices.length > 0) parts.push(`devices ${skill.sandbox.devices.join(", ")}`);
  if (skill.sandbox.hostPids) parts.push("sees host processes");
  return parts.join("; ");
}

function SkillsTable({ skills }: { skills: PackSkill[] }) {
  return (
    <Table caption="The pack's skills">
      <TableHead>
        <Th>Skill</Th>
        <Th>Change</Th>
        <Th>Kind</Th>
        <Th>Class</Th>
        <Th>Sandbox</Th>
        <Th>Secrets needed</Th>
        <Th>Digest</Th>
      </TableHead>
      <TableBody>
        {skills.map((skill) => (
          <Tr key={skill.name} data-testid="pack-skill" data-skill={skill.name}>
            <Td label="Skill" className="min-w-36">
              <span className="font-mono text-[12.5px] font-medium">{skill.name}</span>
              <span className="block text-xs text-zinc-500">{skill.folder}/</span>
              {skill.unavailableReason ? <span className="block text-xs text-amber-800">unavailable once enabled: {skill.unavailableReason}</span> : null}
            </Td>
            <Td label="Change">
              <ChangeBadge change={skill.change} />
            </Td>
            <Td label="Kind" className="text-xs">{skill.kind}</Td>
            <Td label="Class">
              <Badge tone={CLASS_TONE[skill.class]}>{skill.class}</Badge>
            </Td>
            <Td label="Sandbox" className="max-w-64 text-xs break-words text-zinc-700">{sandboxText(skill)}</Td>
            <Td label="Secrets needed" className="font-mono text-xs">{skill.secrets.length > 0 ? skill.secrets.join(", ") : <span className="font-sans text-zinc-500">none</span>}</Td>
            <Td label="Digest" className="font-mono text-xs text-zinc-600" title={skill.digest}>
              {skill.digest.slice(0, 12)}…
            </Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  );
}

function filesDescription(files: PackFileDiff[], against: PackReview["filesAgainst"]): string {
  const changed = files.filter((file) => file.change !== "same").length;
  const same = files.length - changed;
  const tail = same > 0 ? `, ${same} the same` : "";
  if (against.kind === "none") return `${files.length} file${files.length === 1 ? "" : "s"}, all added: no other version of this pack is enabled. Each is shown in full.`;
  if (against.kind === "disk") return `${changed} changed on disk since ${against.version} was enabled${tail}: the enabled files, then what is there now.`;
  if (against.kind === "previous") return `${changed} changed against ${against.version}, enabled before this version${tail}.`;
  return `${changed} changed against ${against.version}, enabled now${tail}. Every added or changed file is shown in full.`;
}

function FileDiffs({ files, against }: { files: PackFileDiff[]; against: PackReview["filesAgainst"] }) {
  const changed = files.filter((file) => file.change !== "same");
  return (
    <Card>
      <CardHeader title="Files" description={filesDescription(files, against)} />
      {changed.length === 0 ? (
        <p className="p-4 text-sm text-zinc-600">No file differs.</p>
      ) : (
        <ul className="divide-y divide-zinc-100">
          {changed.map((file) => (
            <li key={file.path} data-testid="pack-file" data-path={file.path}>
              <details open={changed.length <= 20}>
                <summary className="flex cursor-pointer flex-wrap items-center gap-2 px-4 py-2 text-sm">
                  <ChangeBadge change={file.change} />
                  <span className="font-mono text-[12.5px] break-all">{file.path}</span>
                </summary>
                {file.diff ? <DiffBlock text={file.diff} label={`Diff of ${file.path}`} className="mx-4 mb-3 max-h-[32rem]" /> : null}
              </details>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function skillsDescription(pack: Pack): string {
  if (!pack.comparedWith) return "Nothing of this pack is enabled: enabling it adds every skill.";
  if (pack.comparedWith.enabledNow) return `What enabling this version does to each skill, compared with ${pack.comparedWith.version}, enabled now.`;
  return `What enabling this version did to each skill, compared with ${pack.comparedWith.version}, enabled before it.`;
}

/**
 * The review of one pack version (`/packs/{id}`, admins; DESIGN.md "Skill packs"): what it is and where
 * it came from (commit, signer), every skill with what enabling does to it, its kind, class, sandbox
 * declaration, secrets and digest, and the diff of every file against the enabled version — then the
 * actions. A modified pack lists the files changed on disk since it was enabled.
 */
export function PackReview({ id }: { id: string }) {
  const router = useRouter();
  const identity = useIdentity();
  const isAdmin = identity.data?.role === "admin";
  const review = usePack(id, isAdmin);
  const eyebrow = (
    <Link href="/packs" className="hover:underline">
      Packs
    </Link>
  );
  if (identity.isPending || (isAdmin && review.isPending)) {
    return (
      <>
        <PageHeader eyebrow={eyebrow} title="Pack review" />
        <Card>
          <SkeletonRows rows={6} className="p-4" />
        </Card>
      </>
    );
  }
  if (!isAdmin) {
    return (
      <>
        <PageHeader eyebrow={eyebrow} title="Pack review" />
        <Alert tone="info" title="Admins only">
          Only an admin reviews skill packs.
        </Alert>
      </>
    );
  }
  if (review.isError || !review.data) {
    return (
      <>
        <PageHeader eyebrow={eyebrow} title="Pack review" />
        <Alert
          tone="danger"
          title={review.error instanceof ApiError && review.error.code === "not_found" ? "No such pack" : "Could not load the pack"}
          actions={
            <Button size="sm" onClick={() => void review.refetch()}>
              Retry
            </Button>
          }
        >
          {review.error?.message}
        </Alert>
      </>
    );
  }
  const { pack, files, filesAgainst, digestList } = review.data;
  return (
    <>
      <PageHeader
        eyebrow={eyebrow}
        title={`${pack.name} ${pack.version}`}
        badges={<PackStatusBadge status={pack.status} />}
        description={pack.description || undefined}
        actions={<PackActions pack={pack} onDiscarded={() => router.push("/packs")} />}
      />
      <div className="space-y-4">
        {pack.status === "modified" ? (
          <Alert tone="danger" title="Changed on disk since it was enabled" data-testid="pack-modified">
            Skills whose files changed do not run until a version is staged, reviewed and enabled again: {pack.modifiedFiles.join(", ")}
          </Alert>
        ) : null}
        <Card>
          <DescriptionList
            className="p-4"
            items={[
              { term: "Source", wide: true, value: <span className="break-all">{describeSource(pack.source, pack.commit)}</span> },
              { term: "Commit", value: pack.commit ? <span className="font-mono text-xs break-all">{pack.commit}</span> : "none" },
              { term: "Signature", value: pack.signedBy ? `signed by ${pack.signedBy}` : "unsigned" },
              { term: "Digest", wide: true, value: <span className="font-mono text-xs break-all">{pack.digest}</span> },
              { term: "Staged", value: <>{pack.stagedBy}, <DateTime iso={pack.stagedAt} /></> },
              { term: "Enabled", value: pack.enabledAt ? <DateTime iso={pack.enabledAt} /> : "never" },
              { term: "Previous version", value: pack.previousVersion ? `${pack.previousVersion.version} (${pack.previousVersion.digest.slice(0, 12)}…)` : "none" },
            ]}
          />
        </Card>
        <Card className="overflow-hidden">
          <CardHeader title="Skills" description={skillsDescription(pack)} />
          <SkillsTable skills={pack.skills} />
        </Card>
        <FileDiffs files={files} against={filesAgainst} />
        <details className="rounded-lg border border-zinc-200 bg-white">
          <summary className="cursor-pointer px-4 py-2 text-sm font-medium text-zinc-800">Digest list (what a signature covers)</summary>
          <CodeBlock text={digestList} label="Digest list" className="mx-4 mb-3 max-h-96" />
        </details>
      </div>
    </>
  );
}
