"use client";

import { PageHeader } from "@/components/layout/page-header";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import { DateTime } from "@/components/ui/date-time";
import { EmptyValue } from "@/components/ui/empty-value";
import { LoadFailed } from "@/components/ui/load-failed";
import { Skeleton, SkeletonRows } from "@/components/ui/skeleton";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import { formatDuration } from "@/lib/client/format-time";
import { useLoaderReport, useReloadLoader, type LoaderState } from "@/lib/client/use-loader-report";
import { scanChanges, type LoaderReport, type LoaderScan, type LoaderWatch } from "@/lib/types/skill";
import { LoaderEntriesTable } from "./loader-entries-table";

export { scanChanges };

function Stat({ label, value, tone }: { label: string; value: React.ReactNode; tone?: "red" | "amber" }) {
  const color = tone === "red" ? "text-red-700" : tone === "amber" ? "text-amber-700" : "text-zinc-900";
  return (
    <div className="rounded-lg border border-zinc-200 bg-white px-4 py-3 shadow-xs">
      <dt className="text-[11px] font-medium tracking-wide text-zinc-500 uppercase">{label}</dt>
      <dd className={`mt-1 text-xl font-semibold tabular-nums ${color}`}>{value}</dd>
    </div>
  );
}

function RootsTable({ report }: { report: LoaderReport }) {
  if (report.roots.length === 0) return <p className="px-4 py-5 text-center text-sm text-zinc-500">No allow-list root is configured.</p>;
  return (
    <Table caption="Allow-list roots">
      <TableHead>
        <Th>Root</Th>
        <Th>Status</Th>
        <Th>Reason</Th>
      </TableHead>
      <TableBody>
        {report.roots.map((root) => (
          <Tr key={root.path}>
            <Td label="Root" className="font-mono text-xs break-all">{root.path}</Td>
            <Td label="Status">
              <Badge tone={root.status === "scanned" ? "green" : "amber"} dot>
                {root.status}
              </Badge>
            </Td>
            <Td label="Reason" className="text-[13px] text-zinc-600">{root.reason ?? <EmptyValue label="no reason" />}</Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  );
}

/** Placeholder of the loader page while the report loads. */
export function LoaderReportSkeleton() {
  return (
    <div role="status" aria-label="Loading the loader report" className="space-y-4">
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {[0, 1, 2, 3].map((index) => (
          <Skeleton key={index} className="h-[70px] rounded-lg" />
        ))}
      </div>
      <div className="rounded-lg border border-zinc-200 bg-white p-4">
        <SkeletonRows rows={6} />
      </div>
    </div>
  );
}

/**
 * What a rescan found, in one sentence: "Rescanned: 10 skills registered, 1 failed, 2 skipped." (failed
 * and skipped only when there are any, so a rescan that broke a skill says so where the button is).
 */
export function rescanSummary(report: Pick<LoaderReport, "count" | "failed" | "skipped">): string {
  const parts = [`${report.count} skill${report.count === 1 ? "" : "s"} registered`];
  if (report.failed.length > 0) parts.push(`${report.failed.length} failed`);
  if (report.skipped.length > 0) parts.push(`${report.skipped.length} skipped`);
  return `Rescanned: ${parts.join(", ")}.`;
}

const TRIGGER_LABELS: Record<LoaderScan["trigger"], string> = {
  start: "Start-up",
  rescan: "Rescan",
  replica: "Another replica",
  watch: "Changed on disk",
};

/** The last scans, newest first: when, why, how long, and what each changed. */
function HistoryTable({ history }: { history: LoaderScan[] }) {
  if (history.length === 0) return <p className="px-4 py-5 text-center text-sm text-zinc-500">No scan yet.</p>;
  return (
    <Table caption="Scan history">
      <TableHead>
        <Th>When</Th>
        <Th>Why</Th>
        <Th>Took</Th>
        <Th>Skills</Th>
        <Th>What changed</Th>
      </TableHead>
      <TableBody>
        {history.map((scan, index) => (
          <Tr key={`${scan.at}-${index}`}>
            <Td label="When" className="text-[13px] whitespace-nowrap">
              <DateTime iso={scan.at} />
            </Td>
            <Td label="Why" className="text-[13px]">
              {TRIGGER_LABELS[scan.trigger]}
              {scan.trigger === "watch" && scan.pathCount > 0 ? (
                <span className="mt-0.5 block font-mono text-[11px] break-all text-zinc-500">
                  {scan.paths.join(", ")}
                  {scan.pathCount > scan.paths.length ? ` and ${scan.pathCount - scan.paths.length} more` : ""}
                </span>
              ) : null}
            </Td>
            <Td label="Took" className="text-[13px] tabular-nums whitespace-nowrap">{formatDuration(scan.durationMs)}</Td>
            <Td label="Skills" className="text-[13px] tabular-nums">
              {scan.count}
              {scan.failed > 0 ? <span className="text-red-700"> · {scan.failed} failed</span> : null}
              {scan.skipped > 0 ? <span className="text-amber-700"> · {scan.skipped} skipped</span> : null}
            </Td>
            <Td label="What changed" className="text-[13px] text-zinc-700">{scanChanges(scan)}</Td>
          </Tr>
        ))}
      </TableBody>
    </Table>
  );
}

/** One sentence on whether the roots are watched, for the page header. */
export function watchSentence(watch: LoaderWatch): string {
  if (watch.status === "watching") return `Watching ${watch.paths.length} folder${watch.paths.length === 1 ? "" : "s"}: a skill changed on disk is picked up within 2 s.`;
  if (watch.status === "failed") return `Not watching: ${watch.reason ?? "the watch stopped"}.`;
  return `Not watching${watch.reason ? `: ${watch.reason}` : ""}; use Rescan after changing skills on disk.`;
}

/** The report itself: counts, roots, the scan history, failed, skipped and registered skill files, and the log. */
function LoaderReportBody({ state }: { state: LoaderState }) {
  const { report, history } = state;
  const registeredNames = new Set(report.registered.flatMap((entry) => (entry.name === null ? [] : [entry.name])));
  return (
    <div className="space-y-4">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
        <Stat label="Registered" value={report.count} />
        <Stat label="Skipped" value={report.skipped.length} tone={report.skipped.length > 0 ? "amber" : undefined} />
        <Stat label="Failed" value={report.failed.length} tone={report.failed.length > 0 ? "red" : undefined} />
        <Stat label="Roots" value={`${report.roots.filter((root) => root.status === "scanned").length} / ${report.roots.length}`} />
        <Stat label="Load time" value={formatDuration(report.durationMs)} />
      </dl>
      <Card aria-labelledby="loader-roots">
        <CardHeader title="Allow-list roots" titleId="loader-roots" description="From ONGRID_SKILLS_EXTERNAL_DIRS, or the bundled skills folder when it is unset." />
        <RootsTable report={report} />
      </Card>
      <Card aria-labelledby="loader-history">
        <CardHeader title="Scan history" titleId="loader-history" description="The last scans of this console, newest first: a Rescan reads everything again; a change on disk rereads only the skill folders it touched." />
        <HistoryTable history={history} />
      </Card>
      <Card aria-labelledby="loader-failed">
        <CardHeader title={`Failed (${report.failed.length})`} titleId="loader-failed" description="Skill files (skill.json manifests and SKILL.md files) that could not be parsed or built; they never block start-up." />
        <LoaderEntriesTable entries={report.failed} caption="Failed skill files" withReason registeredNames={registeredNames} />
      </Card>
      <Card aria-labelledby="loader-skipped">
        <CardHeader title={`Skipped (${report.skipped.length})`} titleId="loader-skipped" description="Not registered, with the reason: a name another skill already has (the first one found wins, and the name links to it), a SKILL.md with no frontmatter, a misplaced file or a symbolic link not followed." />
        <LoaderEntriesTable entries={report.skipped} caption="Skipped skill files" withReason registeredNames={registeredNames} />
      </Card>
      <Card aria-labelledby="loader-registered">
        <CardHeader title={`Registered (${report.registered.length})`} titleId="loader-registered" />
        <LoaderEntriesTable entries={report.registered} caption="Registered skills" withReason={false} registeredNames={registeredNames} />
      </Card>
      <Card aria-labelledby="loader-log">
        <CardHeader title="Log" titleId="loader-log" description={`${report.log.length} line${report.log.length === 1 ? "" : "s"}`} />
        <div className="p-3">
          <CodeBlock text={report.log.length > 0 ? report.log.join("\n") : "(empty)"} label="Loader log" className="max-h-96" />
        </div>
      </Card>
    </div>
  );
}

/**
 * The Loader page body: when the last scan ran and how long it took, counts, the allow-list roots
 * (scanned or skipped, with the reason), registered / skipped / failed manifests with path and reason,
 * the seed's log lines, and a Rescan button (POST reload) that replaces the report.
 */
export function LoaderReportView() {
  const report = useLoaderReport();
  const reload = useReloadLoader();
  const data = report.data;

  return (
    <>
      <PageHeader
        title="Loader"
        description={
          data
            ? (
                <>
                  Last scan <DateTime iso={data.report.loadedAt} zone /> · took {formatDuration(data.report.durationMs)} · {data.report.count} skill{data.report.count === 1 ? "" : "s"} registered.{" "}
                  <span className={data.watch.status === "failed" ? "text-amber-700" : undefined}>{watchSentence(data.watch)}</span>
                </>
              )
            : "What the loader found under each allow-list root, and why anything was left out."
        }
        actions={
          <Button variant="primary" pending={reload.isPending} onClick={() => reload.mutate()}>
            {reload.isPending ? "Rescanning…" : "Rescan"}
          </Button>
        }
      />
      {reload.isError ? (
        <Alert tone="danger" title="Rescan failed" className="mb-4">
          {reload.error.message}
        </Alert>
      ) : null}
      {reload.isSuccess && !reload.isPending ? (
        <p role="status" className="mb-4 text-xs text-emerald-700">
          {rescanSummary(reload.data)}
        </p>
      ) : null}
      {report.isPending ? (
        <LoaderReportSkeleton />
      ) : report.isError ? (
        <LoadFailed title="Could not load the loader report" error={report.error} onRetry={() => void report.refetch()} />
      ) : (
        <LoaderReportBody state={report.data} />
      )}
    </>
  );
}
