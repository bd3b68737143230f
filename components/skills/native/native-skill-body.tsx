"use client";

import { useCallback, useRef, useState, type ReactNode } from "react";
import { RecentCalls } from "@/components/calls/recent-calls";
import { Alert } from "@/components/ui/alert";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { RESOURCE_LISTS, type NativeResources, type Skill } from "@/lib/types/skill";
import { SkillRunPanel } from "../skill-run-panel";
import { DeclaredToolsCard, FrontmatterCard, NativeSkillFacts, ScriptsCard } from "./native-skill-cards";
import { ResourceBrowser } from "./resource-browser";
import { SkillMarkdown } from "./skill-markdown";

const NO_RESOURCES: NativeResources = { scripts: [], references: [], templates: [], assets: [], other: [] };

/** A script picked with its "Run" button; `pick` counts the clicks so picking the same script again resets the form. */
interface ScriptPick {
  script: string;
  pick: number;
}

/**
 * The body of a native (SKILL.md) skill page under the shared header (issue 5 point 8): an Alert with
 * the reason when the skill is unavailable; the run form (a `skill_run_script` call: script + argv,
 * through SkillRunPanel and the same policy), the instructions rendered as markdown, the resources
 * browser and the declared tools; beside them the details, the scripts (each "Run" loads it into the
 * form), the other frontmatter keys and the recent calls. `fromCallPanel` is the run panel filled from
 * `?from={callId}` ("Run again"), shown until a script is picked.
 */
export function NativeSkillBody({ skill, fromCallPanel }: { skill: Skill; fromCallPanel: ReactNode | null }) {
  const resources = skill.resources ?? NO_RESOURCES;
  const scripts = resources.scripts.map((path) => path.slice("scripts/".length));
  const allResources = RESOURCE_LISTS.flatMap((list) => resources[list] ?? []);
  const [picked, setPicked] = useState<ScriptPick | null>(null);
  const [selectedResource, setSelectedResource] = useState<string | null>(null);
  const runSection = useRef<HTMLDivElement>(null);
  const resourcesSection = useRef<HTMLDivElement>(null);
  const unavailableReason = skill.available ? null : (skill.unavailableReason ?? "the loader marked this skill unavailable");

  function runScript(script: string) {
    setPicked((previous) => ({ script, pick: (previous?.pick ?? 0) + 1 }));
    runSection.current?.scrollIntoView({ behavior: "smooth", block: "start" });
  }

  const openResource = useCallback((path: string) => {
    setSelectedResource(path);
    resourcesSection.current?.scrollIntoView({ behavior: "smooth", block: "start" });
  }, []);

  const runPanel =
    scripts.length === 0 ? (
      <Card aria-labelledby="run-panel-title">
        <CardHeader title="Test run" titleId="run-panel-title" />
        <p className="px-4 py-6 text-center text-sm text-zinc-500">This skill has no scripts: there is nothing to run. Agents read its instructions and resources.</p>
      </Card>
    ) : picked ? (
      <SkillRunPanel
        key={`${skill.name}:script:${picked.pick}`}
        skill={skill}
        loaded={{ args: { script: picked.script, args: [] }, note: `Script ${picked.script} selected` }}
      />
    ) : (
      (fromCallPanel ?? <SkillRunPanel key={skill.name} skill={skill} />)
    );

  return (
    <>
      {unavailableReason ? (
        <Alert tone="danger" title="This skill is unavailable on this host" className="mb-4" data-testid="unavailable-reason">
          {unavailableReason}. Its instructions and resources can still be read; its scripts cannot run until this is fixed.
        </Alert>
      ) : null}
      <div className="grid items-start gap-4 lg:grid-cols-3">
        <div className="min-w-0 space-y-4 lg:col-span-2">
          <div ref={runSection} className="scroll-mt-4">
            {runPanel}
          </div>
          <Card aria-labelledby="skill-instructions-title">
            <CardHeader title="Instructions" titleId="skill-instructions-title" description="The body of SKILL.md (level 2), what an agent reads with skill_load." />
            <CardBody>
              {skill.instructions && skill.instructions.trim() !== "" ? (
                <SkillMarkdown source={skill.instructions} resources={allResources} onOpenResource={openResource} />
              ) : (
                <p className="text-sm text-zinc-500">SKILL.md has no body.</p>
              )}
            </CardBody>
          </Card>
          <div ref={resourcesSection} className="scroll-mt-4">
            <ResourceBrowser skillName={skill.name} resources={resources} selected={selectedResource} onSelect={setSelectedResource} />
          </div>
          <DeclaredToolsCard tools={skill.tools ?? []} />
        </div>
        <div className="min-w-0 space-y-4">
          <NativeSkillFacts skill={skill} />
          <ScriptsCard scripts={scripts} unavailableReason={unavailableReason} onRun={runScript} onView={openResource} />
          <FrontmatterCard frontmatter={skill.frontmatter ?? {}} />
          <RecentCalls skill={skill.name} canRun={skill.available && scripts.length > 0} />
        </div>
      </div>
    </>
  );
}
