"use client";

import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Textarea } from "@/components/ui/input";
import { useIdentity } from "@/lib/client/identity";
import { useDeletePack, usePackAction, usePackApproval } from "@/lib/client/use-packs";
import type { Pack } from "@/lib/types/pack";

type Pending = "enable" | "rollback" | "delete" | "sign" | "deny";

/** What enabling `pack` does to its skills, in a sentence (dangerous ones marked). */
function counts(pack: Pack): string {
  const changed = pack.skills.filter((skill) => skill.change !== "same");
  const against = pack.comparedWith ? `Against ${pack.comparedWith.version}, enabled now: ` : "Nothing of this pack is enabled: ";
  if (changed.length === 0) return `${against}no skill changes.`;
  return `${against}${changed.map((skill) => `${skill.name}${skill.class === "dangerous" ? " (dangerous)" : ""} ${skill.change}`).join(", ")}.`;
}

/**
 * What an admin may do with a pack version, each asked first in a dialog that says what it changes:
 * Enable (a staged or earlier version; one that adds or changes a dangerous skill waits for a second
 * admin), Roll back (the enabled version, to the one before), Uninstall (the enabled version: its
 * skills leave, their calls stay) or Discard (any other: the console refuses the rollback target), and
 * — for another admin than the one who asked — Sign or Deny (with a reason) a waiting enabling.
 * Refusals show under the buttons.
 */
export function PackActions({ pack, onDiscarded }: { pack: Pack; onDiscarded?: () => void }) {
  const identity = useIdentity();
  const enable = usePackAction("enable");
  const rollback = usePackAction("rollback");
  const remove = useDeletePack();
  const decide = usePackApproval();
  const [asking, setAsking] = useState<Pending | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const reasonId = useId();
  const error = enable.error ?? rollback.error ?? remove.error ?? decide.error;
  const installed = pack.status === "enabled" || pack.status === "modified";
  const isRequester = pack.approvalRequestedBy !== null && pack.approvalRequestedBy === identity.data?.email;
  const reset = () => {
    enable.reset();
    rollback.reset();
    remove.reset();
    decide.reset();
  };
  const close = () => setAsking(null);
  const busy = enable.isPending || rollback.isPending || remove.isPending || decide.isPending;

  function confirm() {
    reset();
    setNotice(null);
    const done = { onSettled: close };
    if (asking === "enable") enable.mutate(pack.id, { ...done, onSuccess: (result) => setNotice(result.approvalId ? "It adds or changes a dangerous skill: it waits for a second admin's signature." : null) });
    if (asking === "rollback") rollback.mutate(pack.id, { ...done, onSuccess: (result) => setNotice(result.approvalId ? `Rolling back to ${result.pack.version} waits for a second admin's signature.` : null) });
    if (asking === "delete") remove.mutate(pack.id, { ...done, onSuccess: () => (installed ? undefined : onDiscarded?.()) });
    if (asking === "sign" && pack.approvalId) decide.mutate({ approvalId: pack.approvalId, decision: "sign" }, done);
    if (asking === "deny" && pack.approvalId) decide.mutate({ approvalId: pack.approvalId, decision: "deny", reason: reason.trim() }, done);
  }

  const dialog: Record<Pending, { title: string; label: string; danger: boolean; body: string }> = {
    enable: {
      title: `Enable ${pack.name} ${pack.version}?`,
      label: "Enable",
      danger: false,
      body: `${counts(pack)} Pending approvals of every skill it changes or removes are voided. A version that adds or changes a dangerous skill, or changes any file of a pack that keeps one, waits for a second admin.`,
    },
    rollback: {
      title: `Roll ${pack.name} back to ${pack.previousVersion ? `${pack.previousVersion.version} (${pack.previousVersion.digest.slice(0, 8)})` : "the version before"}?`,
      label: "Roll back",
      danger: true,
      body: "The version enabled before this one is installed again. Pending approvals of every skill whose code changes are voided.",
    },
    delete: installed
      ? { title: `Uninstall ${pack.name}?`, label: "Uninstall", danger: true, body: "Its skills leave the console; their calls stay in the history. Pending approvals of its skills are voided." }
      : { title: `Discard ${pack.name} ${pack.version}?`, label: "Discard", danger: true, body: "Its stored files and this review are removed; the audit trail keeps what happened. Nothing installed changes." },
    sign: { title: `Sign the enabling of ${pack.name} ${pack.version}?`, label: "Sign and enable", danger: false, body: `${counts(pack)} Your signature enables it at once.` },
    deny: { title: `Deny the enabling of ${pack.name} ${pack.version}?`, label: "Deny", danger: true, body: "It goes back to staged; an admin may ask again." },
  };

  return (
    <div className="min-w-0">
      <span className="inline-flex flex-wrap justify-end gap-2">
        {pack.status === "staged" || pack.status === "disabled" ? (
          <Button size="sm" variant="primary" onClick={() => setAsking("enable")} aria-label={`Enable ${pack.name} ${pack.version}`}>
            Enable
          </Button>
        ) : null}
        {pack.status === "awaiting_approval" && !isRequester ? (
          <>
            <Button size="sm" variant="primary" onClick={() => setAsking("sign")} aria-label={`Sign the enabling of ${pack.name} ${pack.version}`}>
              Sign
            </Button>
            <Button size="sm" onClick={() => setAsking("deny")} aria-label={`Deny the enabling of ${pack.name} ${pack.version}`}>
              Deny
            </Button>
          </>
        ) : null}
        {pack.status === "awaiting_approval" && isRequester ? <span className="text-xs text-amber-800">waits for another admin</span> : null}
        {installed && pack.previousVersion ? (
          <Button size="sm" onClick={() => setAsking("rollback")} aria-label={`Roll ${pack.name} back`}>
            Roll back
          </Button>
        ) : null}
        <Button size="sm" onClick={() => setAsking("delete")} aria-label={`${installed ? "Uninstall" : "Discard"} ${pack.name} ${pack.version}`}>
          {installed ? "Uninstall" : "Discard"}
        </Button>
      </span>
      {notice ? <p className="mt-1 text-xs text-amber-800">{notice}</p> : null}
      {error && asking === null ? (
        <Alert tone="danger" title="Not done" className="mt-2 text-left">
          {error.message}
        </Alert>
      ) : null}
      {asking ? (
        // Left-aligned whatever the cell it is opened from (a table's actions cell is right-aligned).
        <div className="text-left">
          <ConfirmDialog open title={dialog[asking].title} confirmLabel={dialog[asking].label} danger={dialog[asking].danger} pending={busy} onConfirm={confirm} onClose={close}>
            <p>{dialog[asking].body}</p>
            {asking === "deny" ? (
              <div className="mt-3">
                <label htmlFor={reasonId} className="block text-xs font-medium text-zinc-700">
                  Reason (kept in the audit trail)
                </label>
                <Textarea id={reasonId} value={reason} onChange={(event) => setReason(event.target.value)} rows={2} maxLength={500} className="mt-1" placeholder="denied on the Packs page" />
              </div>
            ) : null}
          </ConfirmDialog>
        </div>
      ) : null}
    </div>
  );
}
