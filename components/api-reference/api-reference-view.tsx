"use client";

import { useId, useMemo, useState } from "react";
import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CodeBlock } from "@/components/ui/code-block";
import { EmptyState } from "@/components/ui/empty-state";
import { Input } from "@/components/ui/input";
import { Skeleton, SkeletonRows } from "@/components/ui/skeleton";
import { useOpenApiDocument } from "@/lib/client/use-openapi";
import type { OpenApiOperation } from "@/lib/types/openapi";
import { groupOperations, schemaRefName, type ReferenceOperation } from "./reference-operations";
import { InlineCode } from "./inline-code";

const METHOD_TONES: Record<string, BadgeTone> = { GET: "blue", POST: "green", PUT: "amber", PATCH: "amber", DELETE: "red" };

/** The type of a parameter's schema in a few words: `string`, `integer`, `one of a, b`. */
function typeOf(schema: unknown): string {
  const value = schema as { type?: unknown; enum?: unknown[] } | undefined;
  if (Array.isArray(value?.enum)) return `one of ${value.enum.map(String).join(", ")}`;
  if (Array.isArray(value?.type)) return value.type.join(" or ");
  return typeof value?.type === "string" ? value.type : "any";
}

function Parameters({ operation }: { operation: OpenApiOperation }) {
  const parameters = operation.parameters ?? [];
  if (parameters.length === 0) return null;
  return (
    <div>
      <h4 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">Parameters</h4>
      <ul className="mt-1 space-y-1 text-[13px]">
        {parameters.map((parameter) => (
          <li key={`${parameter.in}:${parameter.name}`} className="break-words">
            <code className="font-mono text-zinc-900">{parameter.name}</code> <span className="text-zinc-500">({parameter.in}, {typeOf(parameter.schema)}{parameter.required ? ", required" : ""})</span>
            {parameter.description ? <span className="text-zinc-700"> — <InlineCode text={parameter.description} /></span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function RequestBody({ operation }: { operation: OpenApiOperation }) {
  const body = operation.requestBody;
  if (!body) return null;
  return (
    <div>
      <h4 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">Request body{body.required ? " (required)" : ""}</h4>
      {body.description ? <p className="mt-1 text-[13px] text-zinc-700"><InlineCode text={body.description} /></p> : null}
      {Object.entries(body.content).map(([media, { schema }]) => (
        <details key={media} className="mt-1">
          <summary className="cursor-pointer text-[13px] text-zinc-700">
            <code className="font-mono">{media}</code> schema
          </summary>
          <CodeBlock className="mt-1 max-h-96" label={`Request body schema (${media})`} text={JSON.stringify(schema, null, 2)} />
        </details>
      ))}
    </div>
  );
}

function Responses({ operation }: { operation: OpenApiOperation }) {
  return (
    <div>
      <h4 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">Responses</h4>
      <ul className="mt-1 space-y-1 text-[13px]">
        {Object.entries(operation.responses).map(([status, response]) => {
          const media = Object.entries(response.content ?? {})[0];
          const named = media ? schemaRefName(media[1].schema) : null;
          return (
            <li key={status} className="break-words">
              <Badge tone={status.startsWith("2") ? "green" : status.startsWith("4") || status.startsWith("5") ? "red" : "neutral"}>{status}</Badge> <span className="text-zinc-700"><InlineCode text={response.description} /></span>
              {media ? <span className="text-zinc-500"> · {named ? `${named} (${media[0]})` : media[0]}</span> : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function Operation({ entry }: { entry: ReferenceOperation }) {
  const { method, path, operation } = entry;
  return (
    <article aria-label={`${method} ${path}`} data-testid="api-operation" className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4 shadow-xs">
      <header className="space-y-1">
        <div className="flex flex-wrap items-center gap-2">
          <Badge tone={METHOD_TONES[method] ?? "neutral"}>{method}</Badge>
          <h3 className="min-w-0 font-mono text-[13px] font-semibold break-all text-zinc-900">{path}</h3>
        </div>
        {operation.summary ? <p className="text-sm text-zinc-800">{operation.summary}</p> : null}
        {operation.description ? <p className="text-[13px] text-zinc-600"><InlineCode text={operation.description} /></p> : null}
        <p className="text-[13px] text-zinc-600">
          <span className="font-medium text-zinc-700">Auth:</span> {operation["x-access"] ?? "see security"}
        </p>
      </header>
      <Parameters operation={operation} />
      <RequestBody operation={operation} />
      <Responses operation={operation} />
    </article>
  );
}

/** Placeholder of the API reference page while the document loads. */
export function ApiReferenceSkeleton() {
  return (
    <div>
      <Skeleton className="mb-5 h-7 w-48" />
      <Skeleton className="mb-4 h-8 w-full max-w-md" />
      <SkeletonRows rows={8} />
    </div>
  );
}

/**
 * The API reference page (DESIGN.md "Pages", "Integrations"): rendered by the console from `GET
 * /api/v1/openapi.json`, grouped by tag, each operation with its method, path, who may call it,
 * parameters, request body schema and responses; a filter box narrows them by method, path, tag,
 * summary or access. Any signed-in person.
 */
export function ApiReferenceView() {
  const { data: document, error, isPending, refetch } = useOpenApiDocument();
  const [filter, setFilter] = useState("");
  const filterId = useId();
  const groups = useMemo(() => (document ? groupOperations(document, filter) : []), [document, filter]);
  if (isPending) return <ApiReferenceSkeleton />;
  if (error || !document) {
    return (
      <Alert tone="danger" title="The API document could not be loaded" actions={<Button size="sm" onClick={() => void refetch()}>Retry</Button>}>
        {error?.message}
      </Alert>
    );
  }
  const total = Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
  const shown = groups.reduce((sum, group) => sum + group.operations.length, 0);
  return (
    <div>
      <PageHeader
        title="API reference"
        description={
          <>
            Every route of the console&apos;s HTTP API ({document.info.title} {document.info.version}, OpenAPI {document.openapi}). Errors are{" "}
            <code className="font-mono text-[13px]">{'{"error": {"code", "message", "details"}}'}</code>.
          </>
        }
        actions={
          <a className="text-sm text-blue-700 underline" href="/api/v1/openapi.json" download="openapi.json">
            Download openapi.json
          </a>
        }
      />
      <div className="mb-4 flex flex-wrap items-center gap-3">
        <label htmlFor={filterId} className="text-sm font-medium text-zinc-700">
          Filter
        </label>
        <Input id={filterId} type="search" className="w-full max-w-md" placeholder="path, method, tag, summary or role" value={filter} onChange={(event) => setFilter(event.target.value)} />
        <p className="text-[13px] text-zinc-500" aria-live="polite" data-testid="api-operation-count">
          {shown} of {total} operations
        </p>
      </div>
      {groups.length === 0 ? (
        <EmptyState title="No operation matches" actions={<Button size="sm" onClick={() => setFilter("")}>Clear the filter</Button>}>
          Nothing matches “{filter}”.
        </EmptyState>
      ) : (
        <div className="space-y-8">
          {groups.map((group) => (
            <section key={group.tag} aria-labelledby={`${filterId}-${group.tag}`}>
              <h2 id={`${filterId}-${group.tag}`} className="mb-3 text-base font-semibold text-zinc-900">
                {group.tag}
              </h2>
              <div className="space-y-3">
                {group.operations.map((entry) => (
                  <Operation key={`${entry.method} ${entry.path}`} entry={entry} />
                ))}
              </div>
            </section>
          ))}
        </div>
      )}
    </div>
  );
}
