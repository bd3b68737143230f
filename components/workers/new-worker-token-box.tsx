"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CodeBlock } from "@/components/ui/code-block";
import { CopyButton } from "@/components/ui/copy-button";
import { OneTimeSecret } from "@/components/ui/one-time-secret";
import type { WorkerTokenInfo } from "@/lib/types/worker";

function slugOf(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "") || "worker";
}

/**
 * The command that saves a worker token named `name` in a file only its owner can read, from what is
 * pasted on standard input (so the token lands in no shell history and no process environment).
 */
export function tokenFileCommand(name: string): string {
  return `install -D -m 600 /dev/stdin ./data/worker-${slugOf(name)}.token`;
}

/**
 * The command that starts a worker against the console at `origin` (DESIGN.md: `npm run worker`) with
 * the token saved by tokenFileCommand (WORKER_TOKEN_FILE: the worker itself warns about a token in
 * WORKER_TOKEN), named after its token (`name`, made shell- and folder-safe) with a state folder of
 * its own, so it also starts beside the console's local worker on the same host.
 */
export function workerCommand(origin: string, name: string): string {
  const slug = slugOf(name);
  return `CONSOLE_URL=${origin} WORKER_NAME=${slug} WORKER_STATE_DIR=./data/worker-${slug} WORKER_TOKEN_FILE=./data/worker-${slug}.token npm run worker`;
}

/**
 * A worker token just created, in a copyable box with the warning that it is shown only now (the console
 * keeps only its hash), and the copyable command that starts a worker with it against this console's
 * origin. `onDismiss` forgets it.
 */
export function NewWorkerTokenBox({ token, workerToken, onDismiss }: { token: string; workerToken: WorkerTokenInfo; onDismiss: () => void }) {
  const origin = typeof window === "undefined" ? "http://<console-address>" : window.location.origin;
  const save = tokenFileCommand(workerToken.name);
  const command = workerCommand(origin, workerToken.name);
  return (
    <Alert tone="warning" live title={`Worker token “${workerToken.name}” created. Copy it now: it will not be shown again.`} data-testid="new-worker-token-box">
      <OneTimeSecret value={token} label="New worker token" testId="new-worker-token" />
      <p className="mt-3">
        On the worker&apos;s host, in a checkout of the console, save the token in a file only you can read: run this, paste the token, press Enter and then
        Ctrl-D.
      </p>
      <div className="mt-1 flex flex-col gap-2 sm:flex-row sm:items-start">
        <CodeBlock text={save} label="Command that saves the token" className="min-w-0 border-amber-300 bg-white !break-all !whitespace-pre-wrap sm:flex-1" data-testid="token-file-command" />
        <span className="shrink-0">
          <CopyButton size="sm" label="Copy command that saves the token" getText={() => save} />
        </span>
      </div>
      <p className="mt-3">Then start the worker with it:</p>
      <div className="mt-1 flex flex-col gap-2 sm:flex-row sm:items-start">
        {/* Wrapped, not scrolled: the whole command stays readable on a phone. */}
        <CodeBlock
          text={command}
          label="Command that starts a worker"
          className="min-w-0 border-amber-300 bg-white !break-all !whitespace-pre-wrap sm:flex-1"
          data-testid="worker-command"
        />
        <span className="shrink-0">
          <CopyButton size="sm" label="Copy command" getText={() => command} />
        </span>
      </div>
      <p className="mt-2 text-xs">
        CONSOLE_URL must reach this console from that host (the default HOST=127.0.0.1 serves this machine only). WORKER_NAME (default the host name),
        WORKER_LABELS and WORKER_CONCURRENCY are optional.
      </p>
      <div className="mt-3">
        <Button size="sm" variant="secondary" onClick={onDismiss}>
          Done, I copied it
        </Button>
      </div>
    </Alert>
  );
}
