"use client";

import { Button } from "@/components/ui/button";
import { ModalFrame } from "@/components/ui/modal-frame";
import { CodeBlock } from "@/components/ui/code-block";
import { DescriptionList } from "@/components/ui/description-list";
import type { Call } from "@/lib/types/call";
import type { SkillClass } from "@/lib/types/skill";
import { SkillClassBadge } from "./skill-class-badge";

/**
 * The run dialog's explicit confirm step (issue 4 point 4) for a call the server stored
 * `awaiting_confirmation`: shows the skill, its class, the persona and the exact args (pretty JSON)
 * the call will run with. "Confirm and run" calls `onConfirm` (the caller POSTs …/confirm); "Don't run",
 * Escape and the backdrop call `onDecline` (the caller cancels the call, so it is not left waiting).
 * `pending` names the action in flight; `error` is shown under the args.
 */
export function RunConfirmDialog({
  call,
  skillClass,
  pending,
  error,
  onConfirm,
  onDecline,
}: {
  call: Call | null;
  skillClass: SkillClass;
  pending: "confirm" | "decline" | null;
  error: string | null;
  onConfirm: () => void;
  onDecline: () => void;
}) {
  return (
    // Escape means "don't run"; the dialog closes once the call is dropped.
    <ModalFrame open={call !== null} busy={pending !== null} width="xl" onEscape={onDecline} testId="run-confirm-dialog">
      {(titleId) =>
        call ? (
          <>
            <div className="space-y-3 p-5">
              <h2 id={titleId} className="text-base font-semibold text-zinc-900">
                Confirm this {skillClass} call?
              </h2>
              <p className="text-sm text-zinc-600">
                The policy wants one person to confirm a {skillClass} call before it runs. Check the exact args it will run with.
              </p>
              <DescriptionList
                columns={4}
                items={[
                  { term: "Skill", value: <span className="font-mono">{call.skill}</span> },
                  { term: "Class", value: <SkillClassBadge skillClass={skillClass} /> },
                  { term: "Persona", value: call.persona ?? "default" },
                  { term: "Call", value: <span className="font-mono text-xs">{call.id}</span> },
                ]}
              />
              <CodeBlock text={JSON.stringify(call.args, null, 2)} label="Exact args" className="max-h-72" data-testid="confirm-args" />
              {error ? (
                <p role="alert" className="text-sm text-red-700">
                  {error}
                </p>
              ) : null}
            </div>
            <div className="flex justify-end gap-2 border-t border-zinc-200 bg-zinc-50 px-5 py-3">
              <Button variant="secondary" onClick={onDecline} pending={pending === "decline"} disabled={pending !== null} autoFocus>
                Don&apos;t run
              </Button>
              <Button variant="primary" onClick={onConfirm} pending={pending === "confirm"} disabled={pending !== null}>
                Confirm and run
              </Button>
            </div>
          </>
        ) : null
      }
    </ModalFrame>
  );
}
