"use client";

import Link from "next/link";
import { CodeBlock } from "@/components/ui/code-block";
import { formatBytes } from "@/lib/client/format-bytes";

/**
 * A JSON value of a listed call (its exact args, an approval's digest input) as a code block, or, when
 * the listing left it out for its size (Call.omitted, Approval.digestInputBytes), a note with that
 * size and a link to the call's page, which shows it whole.
 */
export function ListedJson({ value, omittedBytes, callId, label, className, testId }: { value: unknown; omittedBytes: number | undefined; callId: string; label: string; className?: string; testId?: string }) {
  if (omittedBytes !== undefined) {
    return (
      <p className="rounded-md border border-dashed border-zinc-300 bg-zinc-50 px-3 py-2 text-sm text-zinc-700" data-testid={testId}>
        {label}: {formatBytes(omittedBytes)}, too large to show in a list.{" "}
        <Link href={`/calls/${encodeURIComponent(callId)}`} className="font-medium text-blue-700 hover:underline">
          Open the call to read them whole
        </Link>
        .
      </p>
    );
  }
  return <CodeBlock text={JSON.stringify(value, null, 2)} label={label} className={className} data-testid={testId} />;
}
