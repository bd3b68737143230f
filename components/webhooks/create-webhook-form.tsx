"use client";

import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/input";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useCreateWebhook } from "@/lib/client/use-webhooks";
import type { WebhookEvent, WebhookFormat, WebhookInfo } from "@/lib/types/webhook";
import { ALL_EVENTS, EVENT_LABELS } from "./webhook-events";

/**
 * The form that adds a webhook (`POST /api/v1/webhooks` `{url, events, format}`, admin; DESIGN.md
 * "Integrations"): the address, the format (signed JSON or a Slack message) and the events, all ticked
 * at first. `onCreated` receives the webhook and its secret, which the page shows once. The server's
 * refusal is shown under the form, and what was typed is kept.
 */
export function CreateWebhookForm({ onCreated }: { onCreated: (created: { webhook: WebhookInfo; secret: string }) => void }) {
  const create = useCreateWebhook();
  const hydrated = useHydrated();
  const [url, setUrl] = useState("");
  const [format, setFormat] = useState<WebhookFormat>("json");
  const [events, setEvents] = useState<readonly WebhookEvent[]>(ALL_EVENTS);

  function toggle(event: WebhookEvent, on: boolean) {
    setEvents((current) => ALL_EVENTS.filter((candidate) => (candidate === event ? on : current.includes(candidate))));
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    create.mutate(
      { url: url.trim(), events: [...events], format },
      {
        onSuccess: (answer) => {
          setUrl("");
          setFormat("json");
          setEvents(ALL_EVENTS);
          onCreated(answer);
        },
      },
    );
  }

  return (
    <form onSubmit={submit} aria-label="New webhook" className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-0 flex-[3_1_16rem]">
          <label htmlFor="webhook-url" className="mb-1 block text-sm font-medium text-zinc-800">
            Address
          </label>
          <Input
            id="webhook-url"
            name="url"
            type="url"
            required
            maxLength={2048}
            autoComplete="off"
            placeholder="https://hooks.example.com/console"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
          />
        </div>
        <div className="min-w-0 flex-[1_1_10rem]">
          <label htmlFor="webhook-format" className="mb-1 block text-sm font-medium text-zinc-800">
            Format
          </label>
          <Select id="webhook-format" name="format" value={format} onChange={(event) => setFormat(event.target.value as WebhookFormat)}>
            <option value="json">JSON, signed</option>
            <option value="slack">Slack message</option>
          </Select>
        </div>
      </div>
      <p className="-mt-1 text-xs text-zinc-500">
        Deliveries link to the console&apos;s pages: with an absolute address (and a button in Slack) when the console runs with CONSOLE_PUBLIC_URL set, else
        as a path.
      </p>
      <fieldset disabled={!hydrated}>
        <legend className="mb-1 text-sm font-medium text-zinc-800">Events</legend>
        <div className="grid gap-x-4 gap-y-1 sm:grid-cols-2 lg:grid-cols-3">
          {ALL_EVENTS.map((event) => (
            <label key={event} className="flex items-start gap-2 text-sm text-zinc-800">
              <input type="checkbox" className="mt-0.5 size-4 accent-blue-600" checked={events.includes(event)} onChange={(change) => toggle(event, change.target.checked)} />
              <span className="min-w-0">
                {EVENT_LABELS[event].label}
                <span className="block text-xs text-zinc-500">{EVENT_LABELS[event].meaning}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" variant="primary" pending={create.isPending} disabled={url.trim() === "" || events.length === 0}>
          Add webhook
        </Button>
        {events.length === 0 ? <span className="text-xs text-amber-700">Tick at least one event.</span> : null}
      </div>
      {create.isError ? (
        <Alert tone="danger" title="The webhook was not added">
          {create.error.message}
        </Alert>
      ) : null}
    </form>
  );
}
