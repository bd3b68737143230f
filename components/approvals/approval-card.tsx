"use client";

import Link from "next/link";
import { useId } from "react";
import { CallStatusBadge } from "@/components/calls/call-status-badge";
import { SandboxSummary } from "@/components/skills/sandbox-summary";
import { SkillClassBadge } from "@/components/skills/skill-class-badge";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { ListedJson } from "@/components/calls/listed-json";
import { DescriptionList } from "@/components/ui/description-list";
import type { Approval, ApprovalStatus } from "@/lib/types/approval";
import type { Identity } from "@/lib/types/identity";
import { SKILL_CLASSES, type SkillClass } from "@/lib/types/skill";
import { approvalActionBlock } from "./approval-actions";
import { ApprovalClock } from "./approval-clock";
import { ApprovalSignatures } from "./approval-signatures";
import { DenyApprovalButton } from "./deny-approval-button";
import { SignApprovalButton } from "./sign-approval-button";

const STATUS_TONE: Record<ApprovalStatus, BadgeTone> = { pending: "violet", approved: "green", denied: "red", expired: "neutral", void: "amber" };

/** An approval's status as a badge. */
export function ApprovalStatusBadge({ status }: { status: ApprovalStatus }) {
  return (
    <Badge tone={STATUS_TONE[status]} dot pulse={status === "pending"} data-approval-status={status}>
      {status}
    </Badge>
  );
}

function asSkillClass(value: string): SkillClass {
  return (SKILL_CLASSES as readonly string[]).includes(value) ? (value as SkillClass) : "dangerous";
}

/**
 * One dual-sign request on the Approvals page (issue 4 point 6): skill (linked), class, status, persona,
 * requester, age and time left (ticking), the exact args as pretty JSON, the sandbox declaration
 * (DESIGN.md: shown on every approval), the digest with what it covers and how many files, the
 * signatures so far, and — while pending — Sign and Deny, disabled with the reason for the
 * requester, a signer, a non-approver. An ended approval shows who decided and why, and links its call.
 */
export function ApprovalCard({ approval, identity }: { approval: Approval; identity: Identity | undefined }) {
  const reasonId = useId();
  const block = approvalActionBlock(approval, identity);
  const { call } = approval;
  const pending = approval.status === "pending";

  return (
    <Card id={`approval-${approval.id}`} className="scroll-mt-20" aria-label={`Approval of ${call.skill} requested by ${approval.requestedBy}`} data-testid="approval-card" data-approval-id={approval.id} data-call-id={call.id}>
      <div className="flex flex-wrap items-start justify-between gap-3 border-b border-zinc-200 px-4 py-3">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <Link href={`/skills/${encodeURIComponent(call.skill)}`} className="font-mono text-sm font-semibold text-zinc-900 hover:text-blue-700 hover:underline">
              {call.skill}
            </Link>
            <SkillClassBadge skillClass={asSkillClass(approval.skillClass)} />
            <ApprovalStatusBadge status={approval.status} />
          </div>
          <ApprovalClock approval={approval} className="mt-1" />
        </div>
        <Link href={`/calls/${encodeURIComponent(call.id)}`} className="text-sm font-medium text-blue-700 hover:underline">
          Open call
        </Link>
      </div>
      <div className="grid gap-4 p-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-3">
          <DescriptionList
            columns={2}
            items={[
              { term: "Persona", value: call.persona ?? "default" },
              { term: "Requested by", value: call.tokenName ? `${approval.requestedBy} (token ${call.tokenName})` : approval.requestedBy },
              { term: "Call", value: <span className="font-mono text-xs">{call.id}</span> },
              { term: "Call status", value: <CallStatusBadge status={call.status} /> },
              {
                term: pending || approval.status === "approved" ? "Runs on" : "Would have run on",
                value: (
                  <span data-testid="approval-target">
                    {call.target ? (
                      <>
                        worker or label <code className="font-mono text-xs">{call.target}</code> only
                      </>
                    ) : (
                      "a fully sandboxed worker holding this copy (one with less isolation only when none is live)"
                    )}
                  </span>
                ),
              },
            ]}
          />
          <div>
            <p className="mb-1 text-[11px] font-medium tracking-wide text-zinc-500 uppercase">Exact args</p>
            <ListedJson value={call.args} omittedBytes={call.omitted?.args} callId={call.id} label="Exact args" className="max-h-64" testId="approval-args" />
          </div>
          <div data-testid="approval-sandbox">
            <p className="mb-1 text-[11px] font-medium tracking-wide text-zinc-500 uppercase">Sandbox: what it may reach beyond its folder</p>
            <SandboxSummary sandbox={approval.sandbox} />
          </div>
        </div>
        <div className="min-w-0 space-y-3">
          <ApprovalSignatures approval={approval} />
          <div>
            <p className="text-[11px] font-medium tracking-wide text-zinc-500 uppercase">Digest (SHA-256)</p>
            <p className="mt-0.5 font-mono text-xs break-all text-zinc-800" data-testid="approval-digest">
              {approval.digest}
            </p>
            {approval.skillFiles !== null ? (
              <p className="mt-0.5 text-xs text-zinc-600" data-testid="approval-skill-files">
                Covers {approval.skillFiles} {approval.skillFiles === 1 ? "file" : "files"} of the skill&apos;s folder.
              </p>
            ) : null}
            <details className="mt-1 text-xs text-zinc-600">
              <summary className="cursor-pointer select-none hover:text-zinc-900">What the digest covers</summary>
              <p className="mt-1">
                The skill name, the canonical args and the skill&apos;s digest (its whole folder by content, manifest, env_allow, timeout and sandbox
                declaration), frozen when the call was requested. Any change voids the approval.
              </p>
              <ListedJson value={approval.digestInput} omittedBytes={approval.digestInputBytes} callId={call.id} label="Digest input" className="mt-1 max-h-56" />
            </details>
          </div>
          {!pending && (approval.decidedBy || approval.reason) ? (
            <p className="text-sm text-zinc-700" data-testid="approval-decision">
              {approval.decidedBy ? <>Decided by {approval.decidedBy}. </> : null}
              {approval.reason ? <>Reason: {approval.reason}</> : null}
            </p>
          ) : null}
        </div>
      </div>
      {pending ? (
        <div className="flex flex-wrap items-center justify-end gap-3 border-t border-zinc-200 bg-zinc-50/70 px-4 py-2.5">
          {block && identity ? (
            <p id={reasonId} className="mr-auto text-xs text-zinc-600" data-testid="approval-block-reason">
              You can&apos;t sign or deny: {block}.
            </p>
          ) : null}
          <DenyApprovalButton approval={approval} disabled={block !== null} describedBy={block ? reasonId : undefined} />
          <SignApprovalButton approval={approval} disabled={block !== null} describedBy={block ? reasonId : undefined} />
        </div>
      ) : null}
    </Card>
  );
}
