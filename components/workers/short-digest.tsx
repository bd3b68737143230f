import { CopyButton } from "@/components/ui/copy-button";
import { EmptyValue } from "@/components/ui/empty-value";
import { cx } from "@/components/ui/class-names";

/** How many hex characters of a digest the console shows: enough to tell copies apart at a glance. */
export const SHORT_DIGEST_LENGTH = 12;

/** The first SHORT_DIGEST_LENGTH characters of a SHA-256 hex digest. */
export function shortDigest(digest: string): string {
  return digest.slice(0, SHORT_DIGEST_LENGTH);
}

/**
 * A skill digest shortened to 12 hex characters in monospace (DESIGN.md "Digest"), with a button that
 * copies the whole digest when `copy` is set (so the full value is reachable without hovering). A
 * null digest (the copy could not be hashed) reads `emptyLabel`.
 */
export function ShortDigest({ digest, copy = false, label = "digest", emptyLabel = "not hashed", className }: { digest: string | null; copy?: boolean; label?: string; emptyLabel?: string; className?: string }) {
  if (digest === null) return <EmptyValue label={emptyLabel} />;
  return (
    <span className={cx("inline-flex items-center gap-1.5", className)}>
      <code className="font-mono text-[12px] text-zinc-800" data-digest={digest}>
        {shortDigest(digest)}
      </code>
      {copy ? <CopyButton size="sm" variant="ghost" label="Copy" aria-label={`Copy the full ${label}`} getText={() => digest} /> : null}
    </span>
  );
}
