import type { ReactNode } from "react";
import { Alert } from "./alert";
import { Button } from "./button";

/**
 * A failed load of a view's data (a query): a danger Alert (announced, role=alert) titled `title`
 * ("Could not load the people"), the error's message followed by `children` (what still works
 * meanwhile), and Retry, which calls `onRetry` — the query's refetch, or fetchNextPage for a page of
 * more — showing a spinner while `retrying`. The one shape of every such failure in the console, so
 * none is left without a way to try again.
 */
export function LoadFailed({
  title,
  error,
  onRetry,
  retrying = false,
  className,
  children,
}: {
  title: string;
  error: Error | null | undefined;
  onRetry: () => void;
  retrying?: boolean;
  className?: string;
  children?: ReactNode;
}) {
  return (
    <Alert
      tone="danger"
      title={title}
      className={className}
      actions={
        <Button size="sm" pending={retrying} onClick={onRetry}>
          Retry
        </Button>
      }
    >
      {error?.message ?? "The request failed."}
      {children ? <> {children}</> : null}
    </Alert>
  );
}
