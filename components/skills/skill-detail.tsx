"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { PageHeader } from "@/components/layout/page-header";
import { RecentCalls } from "@/components/calls/recent-calls";
import { SkillWorkersCard } from "@/components/workers/skill-workers-card";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DescriptionList } from "@/components/ui/description-list";
import { EmptyState } from "@/components/ui/empty-state";
import { LoadFailed } from "@/components/ui/load-failed";
import { Skeleton, SkeletonRows } from "@/components/ui/skeleton";
import { isApiError } from "@/lib/client/api-error";
import { useCall } from "@/lib/client/use-calls";
import { useSkill } from "@/lib/client/use-skills";
import type { Skill } from "@/lib/types/skill";
import { CategoryLink } from "./category-link";
import { categoryHref } from "./filter-skills";
import { NativeClass } from "./native/native-skill-cards";
import { NativeSkillBody } from "./native/native-skill-body";
import { SkillSandboxCard } from "./sandbox-summary";
import { SkillClassBadge } from "./skill-class-badge";
import { SkillRunPanel } from "./skill-run-panel";
import { SkillSecrets } from "./skill-secrets";

/**
 * The run panel filled with the args of call `callId` (`/skills/{name}?from={callId}`, "Run again"):
 * a skeleton while the call loads; if it cannot be loaded or belongs to another skill, the panel with
 * its defaults under an alert saying so.
 */
function RunPanelFromCall({ skill, callId }: { skill: Skill; callId: string }) {
  const call = useCall(callId);
  if (call.isPending) {
    return (
      <div role="status" aria-label="Loading the call's args" className="rounded-lg border border-zinc-200 bg-white p-4">
        <SkeletonRows rows={6} />
      </div>
    );
  }
  const problem = call.isError
    ? `Could not load the args of call ${callId}: ${call.error.message}`
    : call.data.skill !== skill.name
      ? `Call ${callId} ran ${call.data.skill}, not ${skill.name}; its args were not loaded.`
      : null;
  if (problem || !call.data) {
    return (
      <div className="space-y-4">
        <Alert tone="warning" title="Args not loaded">
          {problem}
        </Alert>
        <SkillRunPanel skill={skill} />
      </div>
    );
  }
  return <SkillRunPanel skill={skill} loaded={{ args: call.data.args ?? {}, note: `Args from call ${call.data.id.slice(0, 12)}` }} />;
}

function EnvAllow({ names }: { names: string[] }) {
  if (names.length === 0) return <span className="text-zinc-500">none — the child gets an empty environment</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {names.map((name) => (
        <code key={name} className="rounded bg-zinc-100 px-1 font-mono text-[12px] text-zinc-800">
          {name}
        </code>
      ))}
    </span>
  );
}

/** The metadata card of a skill: category, class, kind, timeout, env_allow, secrets and source. */
function SkillFacts({ skill }: { skill: Skill }) {
  return (
    <Card aria-labelledby="skill-facts-title">
      <CardHeader title="Details" titleId="skill-facts-title" />
      <CardBody>
        <DescriptionList
          columns={2}
          items={[
            { term: "Category", value: <CategoryLink category={skill.category} /> },
            { term: "Class", value: <SkillClassBadge skillClass={skill.class} /> },
            { term: "Kind", value: skill.kind },
            { term: "Timeout", value: <span className="font-mono tabular-nums">{skill.timeoutSeconds} s</span> },
            { term: "env_allow", value: <EnvAllow names={skill.envAllow} />, wide: true },
            { term: "Secrets", value: <SkillSecrets skill={skill} />, wide: true },
            { term: "Source", value: <code className="font-mono text-[12px] break-all text-zinc-700">{skill.source.path}</code>, wide: true },
            { term: "Allow-list root", value: <code className="font-mono text-[12px] break-all text-zinc-700">{skill.source.root}</code>, wide: true },
          ]}
        />
      </CardBody>
    </Card>
  );
}

/** Placeholder of the skill page while the skill loads. */
export function SkillDetailSkeleton() {
  return (
    <div role="status" aria-label="Loading skill">
      <Skeleton className="mb-2 h-3 w-32" />
      <Skeleton className="mb-2 h-6 w-64" />
      <Skeleton className="mb-6 h-4 w-96 max-w-full" />
      <div className="grid gap-4 lg:grid-cols-3">
        <div className="rounded-lg border border-zinc-200 bg-white p-4 lg:col-span-2">
          <SkeletonRows rows={6} />
        </div>
        <div className="rounded-lg border border-zinc-200 bg-white p-4">
          <SkeletonRows rows={5} />
        </div>
      </div>
    </div>
  );
}

/**
 * The skill page body: header (name, class, kind, description), the test-run panel (filled with a past
 * call's args when the URL has `?from={callId}`), the skill's facts, its sandbox declaration, the
 * workers holding it (with their digests: DESIGN.md "Claiming") and its recent calls; a native
 * (SKILL.md) skill gets NativeSkillBody instead (instructions, resources, scripts, declared tools). Loading skeleton; a not-found state for an unknown name; other errors with retry.
 */
export function SkillDetail({ name }: { name: string }) {
  const skill = useSkill(name);
  const fromCallId = useSearchParams().get("from");

  if (skill.isPending) return <SkillDetailSkeleton />;
  if (skill.isError) {
    if (isApiError(skill.error, "not_found")) {
      return (
        <EmptyState
          title={`No skill named “${name}”`}
          actions={
            <Link href="/skills" className="text-sm font-medium text-blue-700 hover:underline">
              Back to the skills list
            </Link>
          }
        >
          It is not registered. It may have been renamed, or skipped by the loader — see the{" "}
          <Link href="/loader" className="text-blue-700 hover:underline">
            loader report
          </Link>
          .
        </EmptyState>
      );
    }
    return (
      <LoadFailed title="Could not load the skill" error={skill.error} onRetry={() => void skill.refetch()} />
    );
  }

  const data = skill.data;
  return (
    <>
      <PageHeader
        eyebrow={
          <nav aria-label="Breadcrumb" className="flex items-center gap-1">
            <Link href="/skills" className="hover:text-zinc-800 hover:underline">
              Skills
            </Link>
            <span aria-hidden="true">/</span>
            <Link href={categoryHref(data.category)} className="hover:text-zinc-800 hover:underline">
              {data.category}
            </Link>
          </nav>
        }
        title={<span className="font-mono">{data.name}</span>}
        badges={
          <>
            {data.kind === "native" ? <NativeClass skill={data} /> : <SkillClassBadge skillClass={data.class} />}
            <Badge tone={data.kind === "native" ? "violet" : "neutral"}>{data.kind}</Badge>
            {!data.available ? <Badge tone="red">unavailable</Badge> : null}
          </>
        }
        description={data.description}
      />
      {data.warnings.length > 0 ? (
        <Alert tone="warning" title={`${data.warnings.length} loader warning${data.warnings.length === 1 ? "" : "s"}`} className="mb-4">
          <ul className="list-inside list-disc">
            {data.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </Alert>
      ) : null}
      {data.specDeviations && data.specDeviations.length > 0 ? <SpecDeviations deviations={data.specDeviations} /> : null}
      {data.kind === "native" ? (
        <NativeSkillBody
          skill={data}
          fromCallPanel={fromCallId ? <RunPanelFromCall key={`${data.name}:${fromCallId}`} skill={data} callId={fromCallId} /> : null}
        />
      ) : (
        <div className="grid items-start gap-4 lg:grid-cols-3">
          <div className="min-w-0 lg:col-span-2">
            {fromCallId ? (
              <RunPanelFromCall key={`${data.name}:${fromCallId}`} skill={data} callId={fromCallId} />
            ) : (
              <SkillRunPanel key={data.name} skill={data} />
            )}
          </div>
          <div className="min-w-0 space-y-4">
            <SkillFacts skill={data} />
            <SkillSandboxCard sandbox={data.sandbox} />
            <SkillWorkersCard skill={data.name} />
            <RecentCalls skill={data.name} canRun={data.available && data.class === "safe"} />
          </div>
        </div>
      )}
    </>
  );
}

/**
 * The strict report of a native skill (DESIGN.md "Native skills": loaded leniently, reported strictly):
 * what a client that validates SKILL.md against the Agent Skills specification would refuse, folded
 * under one line since the console loads the skill anyway.
 */
function SpecDeviations({ deviations }: { deviations: string[] }) {
  return (
    <details className="mb-4 rounded-lg border border-zinc-200 bg-zinc-50 px-4 py-2 text-sm text-zinc-700" data-testid="spec-deviations">
      <summary className="cursor-pointer font-medium text-zinc-800">
        {deviations.length} departure{deviations.length === 1 ? "" : "s"} from the Agent Skills specification
        <span className="font-normal text-zinc-500"> · loaded anyway; a strict client would refuse this SKILL.md</span>
      </summary>
      <ul className="mt-2 list-inside list-disc space-y-0.5">
        {deviations.map((deviation) => (
          <li key={deviation}>{deviation}</li>
        ))}
      </ul>
    </details>
  );
}
