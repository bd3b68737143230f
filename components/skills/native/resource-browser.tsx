"use client";

import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import { SkeletonRows } from "@/components/ui/skeleton";
import { isApiError } from "@/lib/client/api-error";
import { skillResourceUrl, useSkillResource, type SkillResource } from "@/lib/client/use-skill-resource";
import { formatBytes } from "@/lib/client/format-bytes";
import { RESOURCE_LISTS, type NativeResources, type ResourceList } from "@/lib/types/skill";

/** The numbers 1…n, one a line, for the gutter beside a text of n lines. */
function lineNumbers(text: string): string {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  return lines.map((_, index) => index + 1).join("\n");
}

/**
 * A resource's text with line numbers: two side-by-side `<pre>`s (gutter and text, two text nodes
 * however long the file) in one scroll box, so a file up to the size limit renders at once.
 */
function NumberedText({ path, text }: { path: string; text: string }) {
  return (
    <div className="max-h-[32rem] overflow-auto rounded-md border border-zinc-200 bg-zinc-50" tabIndex={0} aria-label={`Contents of ${path}`} data-testid="resource-text">
      <div className="flex min-w-max font-mono text-[12.5px] leading-5">
        <pre aria-hidden="true" className="sticky left-0 shrink-0 border-r border-zinc-200 bg-zinc-100 px-2 py-2.5 text-right text-zinc-400 select-none">
          {lineNumbers(text)}
        </pre>
        <pre className="px-3 py-2.5 whitespace-pre text-zinc-800">{text}</pre>
      </div>
    </div>
  );
}

/**
 * True when the server described the file instead of reading it because it is over the size limit
 * (SKILL_RESOURCE_LIMIT_BYTES; the contract's description ends "larger than the N-byte limit"): the raw
 * URL then answers 413, so there is nothing to download through the console.
 */
function isOverLimit(resource: SkillResource): boolean {
  return resource.text === null && /larger than the \d+-byte limit/.test(resource.description);
}

/** What the browser shows for a resource that has no text to display (binary, or over the limit). */
function ResourceDescription({ resource }: { resource: SkillResource }) {
  return (
    <p className="rounded-md border border-dashed border-zinc-300 px-3 py-6 text-center text-sm text-zinc-600" data-testid="resource-description">
      {resource.description}
    </p>
  );
}

/** The viewer pane: the picked resource's name, size, media type and Download link, then its content. */
function ResourceViewer({ skillName, path }: { skillName: string; path: string }) {
  const resource = useSkillResource(skillName, path);
  const fileName = path.split("/").pop() ?? path;
  return (
    <div className="min-w-0 flex-1 space-y-2" data-testid="resource-viewer" data-path={path}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0">
          <h3 className="truncate font-mono text-[13px] font-medium text-zinc-900">{path}</h3>
          {resource.data ? (
            <p className="text-xs text-zinc-500">
              {formatBytes(resource.data.size)} · {resource.data.mediaType}
              {resource.data.truncated ? " · truncated" : ""}
            </p>
          ) : null}
        </div>
        {resource.data && isOverLimit(resource.data) ? (
          <span className="text-xs text-zinc-500">Too large to download here</span>
        ) : (
          <a
            href={skillResourceUrl(skillName, path)}
            download={fileName}
            className="inline-flex h-7 items-center rounded-md border border-zinc-300 bg-white px-2.5 text-xs font-medium text-zinc-800 hover:border-zinc-400 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-blue-600"
          >
            Download
          </a>
        )}
      </div>
      {resource.isPending ? (
        <div role="status" aria-label={`Loading ${path}`}>
          <SkeletonRows rows={6} />
        </div>
      ) : resource.isError ? (
        <Alert
          tone="danger"
          title={isApiError(resource.error, "not_found") ? "Not a resource of this skill" : "Could not load the resource"}
          actions={
            <Button size="sm" onClick={() => void resource.refetch()}>
              Retry
            </Button>
          }
        >
          {resource.error.message}
        </Alert>
      ) : resource.data.text === null ? (
        <ResourceDescription resource={resource.data} />
      ) : (
        <>
          {resource.data.truncated ? (
            <Alert tone="warning" title="Truncated">
              Only the start of the file is shown. {resource.data.description}
            </Alert>
          ) : null}
          <NumberedText path={path} text={resource.data.text} />
        </>
      )}
    </div>
  );
}

/**
 * The resources browser of a native skill (level 3, issue 5 point 8): the four folders scripts/,
 * references/, templates/, assets/ and the folder's other files (FORMS.md, reference/…) as groups; picking a file (`selected`, owned by the
 * page so instruction links and script rows can open one too) shows its text with line numbers, or the
 * server's description for a binary or too large file, with a Download link to the raw file.
 */
export function ResourceBrowser({
  skillName,
  resources,
  selected,
  onSelect,
}: {
  skillName: string;
  resources: NativeResources;
  selected: string | null;
  onSelect: (path: string) => void;
}) {
  // A report from an older console has no `other` list.
  const filesOf = (list: ResourceList) => resources[list] ?? [];
  const total = RESOURCE_LISTS.reduce((sum, list) => sum + filesOf(list).length, 0);
  return (
    <Card aria-labelledby="skill-resources-title" id="skill-resources">
      <CardHeader
        title="Resources"
        titleId="skill-resources-title"
        description={`${total} file${total === 1 ? "" : "s"} an agent may read one at a time (level 3).`}
      />
      <div className="flex flex-col gap-4 p-4 md:flex-row">
        <nav aria-label="Resource files" className="w-full shrink-0 space-y-3 md:w-56">
          {RESOURCE_LISTS.map((folder) => (
            <div key={folder} data-testid="resource-folder" data-folder={folder}>
              <h3 className="mb-1 flex items-center gap-1.5 font-mono text-xs font-semibold text-zinc-700">
                {folder === "other" ? <span className="font-sans">other files</span> : `${folder}/`}
                <span className="font-sans font-normal text-zinc-400 tabular-nums">{filesOf(folder).length}</span>
              </h3>
              {filesOf(folder).length === 0 ? (
                <p className="pl-2 text-xs text-zinc-400">empty</p>
              ) : (
                <ul className="space-y-px">
                  {filesOf(folder).map((path) => (
                    <li key={path}>
                      <button
                        type="button"
                        onClick={() => onSelect(path)}
                        aria-current={selected === path ? "true" : undefined}
                        title={path}
                        className={cx(
                          "block w-full truncate rounded px-2 py-1 text-left font-mono text-[12.5px] focus-visible:outline-2 focus-visible:outline-blue-600",
                          selected === path ? "bg-blue-50 font-medium text-blue-800" : "text-zinc-700 hover:bg-zinc-100",
                        )}
                      >
                        {folder === "other" ? path : path.slice(folder.length + 1)}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ))}
        </nav>
        {selected ? (
          <ResourceViewer key={selected} skillName={skillName} path={selected} />
        ) : (
          <p className="flex min-h-32 flex-1 items-center justify-center rounded-md border border-dashed border-zinc-300 px-3 text-center text-sm text-zinc-500">
            {total === 0 ? "This skill has no resource files." : "Pick a file to see its contents."}
          </p>
        )}
      </div>
    </Card>
  );
}
