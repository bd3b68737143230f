"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ListedJson } from "@/components/calls/listed-json";
import { ConfirmDialog } from "@/components/ui/dialog";
import { LoadFailed } from "@/components/ui/load-failed";
import { formatBytes } from "@/lib/client/format-bytes";
import { formatInstantTitle, formatRelative } from "@/lib/client/format-time";
import { useCallsAwaitingConfirmation, useConfirmCall, useDropCall } from "@/lib/client/approvals";
import { useIdentity } from "@/lib/client/identity";
import type { Call } from "@/lib/types/call";
import { roleAtLeast, type Identity } from "@/lib/types/identity";
import { useNow } from "./use-now";

/** Why `identity` may not confirm a call here, or null when they may (operator and above, as a person). */
function confirmBlock(identity: Identity | undefined): string | null {
  if (!identity) return "checking who you are…";
  if (identity.via !== "session") return "a person must confirm; API tokens cannot";
  if (!roleAtLeast(identity.role, "operator")) return `only operators and above may confirm; you are a ${identity.role}`;
  return null;
}

/** One mutating call waiting for a confirmation: who asked, under which persona, the exact args, Confirm and Drop. */
function WaitingCall({ call, block, now }: { call: Call; block: string | null; now: number }) {
  const router = useRouter();
  const [navigating, startNavigation] = useTransition();
  const [action, setAction] = useState<"confirm" | "drop" | null>(null);
  const confirm = useConfirmCall();
  const drop = useDropCall();
  const mutation = action === "drop" ? drop : confirm;

  return (
    <li className="space-y-2 px-4 py-3" data-testid="confirmation-item" data-call-id={call.id}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm">
          <Link href={`/calls/${encodeURIComponent(call.id)}`} className="font-mono font-semibold text-zinc-900 hover:text-blue-700 hover:underline">
            {call.skill}
          </Link>{" "}
          <span className="text-zinc-600">
            under <strong className="font-medium">{call.persona ?? "default"}</strong>, requested by {call.requestedBy}
            {call.tokenName ? ` (token ${call.tokenName})` : ""},{" "}
            <span title={formatInstantTitle(call.createdAt)} className="tabular-nums">
              {formatRelative(call.createdAt, now)}
            </span>
          </span>
        </p>
        <div className="flex items-center gap-2">
          <Button size="sm" disabled={block !== null} title={block ?? undefined} onClick={() => setAction("drop")}>
            Don&apos;t run
          </Button>
          <Button size="sm" variant="primary" disabled={block !== null} title={block ?? undefined} onClick={() => setAction("confirm")}>
            Confirm and run
          </Button>
        </div>
      </div>
      <ListedJson value={call.args} omittedBytes={call.omitted?.args} callId={call.id} label={`Exact args of ${call.skill}`} className="max-h-48" />
      <ConfirmDialog
        open={action !== null}
        danger={action === "drop"}
        title={action === "drop" ? `Drop ${call.skill}?` : `Run ${call.skill} now?`}
        confirmLabel={action === "drop" ? "Don't run it" : "Confirm and run"}
        dismissLabel="Back"
        pending={mutation.isPending || navigating}
        onClose={() => {
          setAction(null);
          confirm.reset();
          drop.reset();
        }}
        onConfirm={() =>
          action === "drop"
            ? drop.mutate(call.id, { onSuccess: () => setAction(null) })
            : // mutateAsync: the approvals feed may take this item away before the answer arrives (see SignApprovalButton).
              confirm
                .mutateAsync(call.id)
                .then((started) => startNavigation(() => router.push(`/calls/${encodeURIComponent(started.id)}`)))
                .catch(() => undefined)
        }
      >
        <p>
          {action === "drop"
            ? "The call ends without running; the requester sees it cancelled."
            : call.omitted?.args !== undefined
              ? `It runs under persona ${call.persona ?? "default"} with the ${formatBytes(call.omitted.args)} of args on its call page (read them there first), and its timeline opens.`
              : `It runs under persona ${call.persona ?? "default"} with exactly the args shown, and its timeline opens.`}
        </p>
        {mutation.error ? (
          <p role="alert" className="mt-3 text-sm text-red-700">
            {mutation.error.message}
          </p>
        ) : null}
      </ConfirmDialog>
    </li>
  );
}

/**
 * Mutating calls waiting for one person's confirmation (issue 4 point 4) — typically an agent's, since
 * a person in the console confirms in the run dialog — with the exact args, "Confirm and run" (POST
 * …/confirm, then the call page) and "Don't run" (cancel), for operators and above signed in as a
 * person. Re-read while any waits. Renders nothing when none waits.
 */
export function ConfirmationQueue() {
  const calls = useCallsAwaitingConfirmation();
  const identity = useIdentity();
  const now = useNow(5000);
  if (calls.isError) {
    return (
      <LoadFailed title="Could not load the calls awaiting confirmation" error={calls.error} onRetry={() => void calls.refetch()} className="mb-4" />
    );
  }
  if (!calls.data || calls.data.length === 0) return null;
  const block = confirmBlock(identity.data);
  return (
    <Card className="mb-6" aria-labelledby="confirmation-queue-title">
      <CardHeader
        title={`Awaiting confirmation (${calls.data.length})`}
        titleId="confirmation-queue-title"
        description="Mutating calls run after one operator confirms them."
      />
      <ul className="divide-y divide-zinc-200">
        {calls.data.map((call) => (
          <WaitingCall key={call.id} call={call} block={block} now={now} />
        ))}
      </ul>
    </Card>
  );
}
