"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CodeBlock } from "@/components/ui/code-block";
import { OneTimeSecret } from "@/components/ui/one-time-secret";
import type { WebhookInfo } from "@/lib/types/webhook";

/** How a receiver checks a delivery's signature (README "Webhooks"), in Node. */
const VERIFY_SNIPPET = `const expected = "sha256=" + crypto.createHmac("sha256", secret).update(rawBody).digest("hex");
const valid = crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(req.headers["x-console-signature"] ?? ""));`;

/**
 * A webhook just added: its signing secret, shown only now (the console keeps it sealed and never
 * serves it again), with how a receiver checks `X-Console-Signature`. `onDismiss` forgets it.
 */
export function NewWebhookSecretBox({ webhook, secret, onDismiss }: { webhook: WebhookInfo; secret: string; onDismiss: () => void }) {
  return (
    <Alert tone="warning" live title="Webhook added. Copy its signing secret now: it will not be shown again." data-testid="new-webhook-secret-box">
      <p className="break-all">
        Deliveries to <span className="font-mono">{webhook.url}</span> carry <span className="font-mono">X-Console-Signature: sha256=…</span>, the HMAC-SHA256 of the
        exact body under this secret.
      </p>
      <OneTimeSecret value={secret} label="Webhook signing secret" testId="new-webhook-secret" copyLabel="Copy secret" />
      <p className="mt-3">A receiver checks it before trusting a body, e.g. in Node:</p>
      <CodeBlock text={VERIFY_SNIPPET} label="How to check a signature" wrap className="mt-1 border-amber-300 bg-white" />
      <div className="mt-3">
        <Button size="sm" onClick={onDismiss}>
          Done, I copied it
        </Button>
      </div>
    </Alert>
  );
}
