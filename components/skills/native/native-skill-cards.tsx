"use client";

import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import { DescriptionList } from "@/components/ui/description-list";
import { EmptyValue } from "@/components/ui/empty-value";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { SkillWorkersCard } from "@/components/workers/skill-workers-card";
import type { NativeToolDeclaration, Skill } from "@/lib/types/skill";
import { CategoryLink } from "../category-link";
import { SkillSandboxCard } from "../sandbox-summary";
import { isReadOnlyNative, SkillClassBadge } from "../skill-class-badge";
import { SkillSecrets } from "../skill-secrets";

/** Frontmatter keys the page shows elsewhere (header, details, tools table), left out of the key/value list. */
const SHOWN_ELSEWHERE = new Set(["name", "description", "when_to_use", "tools"]);

/**
 * The class line of a native skill (DESIGN.md "Native skills", class rules): what reading it costs
 * (always safe) and, separately, what running its scripts needs — its class, with the note that they
 * run as `mutating` when the frontmatter declares none; a skill with no scripts shows only the first.
 */
export function NativeClass({ skill }: { skill: Skill }) {
  if (isReadOnlyNative(skill)) {
    return (
      <span className="inline-flex flex-wrap items-center gap-2">
        <SkillClassBadge skillClass="safe" label="read" title="Reading its instructions and resources is always safe." />
        <span className="text-xs text-zinc-500">no scripts to run</span>
      </span>
    );
  }
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <SkillClassBadge skillClass="safe" label="read" title="Reading its instructions and resources is always safe." />
      <SkillClassBadge skillClass={skill.class} label="scripts" />
      {skill.declaredClass === null ? (
        <span className="text-xs text-zinc-500" data-testid="declared-class-none">
          declared: none — scripts run as mutating
        </span>
      ) : null}
    </span>
  );
}

/**
 * The details card of a native skill (category, class, kind, availability, the secrets it needs, when_to_use, its scripts'
 * timeout when it has scripts, and SKILL.md path), followed by its Sandbox card and the Workers card of who holds it with which digest
 * (DESIGN.md "Workers and the sandbox": both shown on the skill page), as siblings in the side column.
 */
export function NativeSkillFacts({ skill }: { skill: Skill }) {
  return (
    <>
      <NativeSkillDetails skill={skill} />
      <SkillSandboxCard sandbox={skill.sandbox} />
      <SkillWorkersCard skill={skill.name} />
    </>
  );
}

function NativeSkillDetails({ skill }: { skill: Skill }) {
  return (
    <Card aria-labelledby="skill-facts-title">
      <CardHeader title="Details" titleId="skill-facts-title" />
      <CardBody>
        <DescriptionList
          columns={2}
          items={[
            { term: "Category", value: <CategoryLink category={skill.category} /> },
            { term: "Kind", value: <Badge tone="violet">native</Badge> },
            { term: "Class", value: <NativeClass skill={skill} />, wide: true },
            {
              term: "Available",
              value: skill.available ? "yes" : <span className="text-red-700">no — {skill.unavailableReason ?? "see the loader report"}</span>,
              wide: true,
            },
            { term: "Secrets", value: <SkillSecrets skill={skill} />, wide: true },
            {
              term: "When to use",
              value: skill.whenToUse ? <span className="whitespace-pre-wrap">{skill.whenToUse}</span> : <EmptyValue label="not given" />,
              wide: true,
            },
            ...(isReadOnlyNative(skill) ? [] : [{ term: "Script timeout", value: <span className="font-mono tabular-nums">{skill.timeoutSeconds} s</span> }]),
            { term: "Source", value: <code className="font-mono text-[12px] break-all text-zinc-700">{skill.source.path}</code>, wide: true },
          ]}
        />
      </CardBody>
    </Card>
  );
}

/** One frontmatter value: text as is (line breaks kept), numbers/booleans in mono, null as "none", objects and arrays as JSON. */
function FrontmatterValue({ value }: { value: unknown }): ReactNode {
  if (value === null || value === undefined) return <EmptyValue label="null" />;
  if (typeof value === "string") return <span className="whitespace-pre-wrap">{value}</span>;
  if (typeof value === "number" || typeof value === "boolean") return <code className="font-mono text-[12.5px]">{String(value)}</code>;
  return <CodeBlock text={JSON.stringify(value, null, 2)} className="mt-0.5 max-h-60 text-[12px]" />;
}

/**
 * The frontmatter keys not shown elsewhere (license, activation, metadata, class, compatibility and any
 * unknown key, kept by the loader) as a compact key/value list, in the file's order.
 */
export function FrontmatterCard({ frontmatter }: { frontmatter: Record<string, unknown> }) {
  const entries = Object.entries(frontmatter).filter(([key]) => !SHOWN_ELSEWHERE.has(key));
  return (
    <Card aria-labelledby="skill-frontmatter-title">
      <CardHeader title="Frontmatter" titleId="skill-frontmatter-title" description="Everything the SKILL.md frontmatter says, as parsed." />
      <CardBody>
        {entries.length === 0 ? (
          <p className="text-sm text-zinc-500">No other keys.</p>
        ) : (
          <dl className="space-y-2.5" data-testid="skill-frontmatter">
            {entries.map(([key, value]) => (
              <div key={key} className="min-w-0">
                <dt className="font-mono text-[11px] font-medium text-zinc-500">{key}</dt>
                <dd className="mt-0.5 text-sm break-words text-zinc-900">
                  <FrontmatterValue value={value} />
                </dd>
              </div>
            ))}
          </dl>
        )}
      </CardBody>
    </Card>
  );
}

/** The `tools[]` the frontmatter declares, as a table: name, impl, class, description. */
export function DeclaredToolsCard({ tools }: { tools: NativeToolDeclaration[] }) {
  return (
    <Card aria-labelledby="skill-tools-title">
      <CardHeader title="Declared tools" titleId="skill-tools-title" description="The frontmatter's tools[]; the highest class among them is the skill's class unless it declares its own." />
      {tools.length === 0 ? (
        <p className="px-4 py-4 text-sm text-zinc-500">This skill declares no tools.</p>
      ) : (
        <Table caption="Tools the skill declares">
          <TableHead>
            <Th>Name</Th>
            <Th>Impl</Th>
            <Th>Class</Th>
            <Th>Description</Th>
          </TableHead>
          <TableBody>
            {tools.map((tool, index) => (
              <Tr key={`${tool.name}:${index}`} data-testid="declared-tool">
                <Td label="Name" className="font-mono text-[12.5px] whitespace-nowrap">{tool.name}</Td>
                <Td label="Impl" className="font-mono text-[12.5px]">{tool.impl ?? <EmptyValue />}</Td>
                <Td label="Class">{tool.class ? <SkillClassBadge skillClass={tool.class} /> : <EmptyValue label="not declared" />}</Td>
                <Td label="Description" className="text-zinc-600">{tool.description ?? <EmptyValue />}</Td>
              </Tr>
            ))}
          </TableBody>
        </Table>
      )}
    </Card>
  );
}

/**
 * The skill's scripts (files under scripts/, named relative to it as skill_run_script takes them), each
 * with "Run" (selects it in the run form above, with no args) and "View" (opens it in the resources
 * browser). Run is disabled with the reason when the skill is unavailable.
 */
export function ScriptsCard({
  scripts,
  unavailableReason,
  onRun,
  onView,
}: {
  scripts: string[];
  unavailableReason: string | null;
  onRun: (script: string) => void;
  onView: (path: string) => void;
}) {
  return (
    <Card aria-labelledby="skill-scripts-title">
      <CardHeader title="Scripts" titleId="skill-scripts-title" description="Run one through the same policy as any call." />
      {scripts.length === 0 ? (
        <p className="px-4 py-4 text-sm text-zinc-500">No scripts/ folder: this skill only gives instructions.</p>
      ) : (
        <ul className="divide-y divide-zinc-100">
          {scripts.map((script) => (
            <li key={script} className="flex items-center justify-between gap-2 px-4 py-2" data-testid="skill-script" data-script={script}>
              <button
                type="button"
                onClick={() => onView(`scripts/${script}`)}
                className="min-w-0 truncate text-left font-mono text-[12.5px] text-zinc-800 hover:text-blue-700 hover:underline"
                title={`View scripts/${script}`}
              >
                {script}
              </button>
              <Button
                size="sm"
                onClick={() => onRun(script)}
                disabled={unavailableReason !== null}
                title={unavailableReason ?? `Select ${script} in the run form`}
                aria-label={`Run ${script}`}
              >
                Run
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
