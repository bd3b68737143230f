import Link from "next/link";
import { EmptyValue } from "@/components/ui/empty-value";
import { Table, TableBody, TableHead, Td, Th, Tr } from "@/components/ui/table";
import type { LoaderEntry } from "@/lib/types/skill";

/** Path of a manifest relative to its root when it lies under it, else the absolute path. */
function shortPath(entry: LoaderEntry): string {
  const root = entry.root.endsWith("/") ? entry.root : `${entry.root}/`;
  return entry.path.startsWith(root) ? entry.path.slice(root.length) : entry.path;
}

/**
 * The manifests of one loader outcome (registered, skipped or failed) as a table: name (a link to the
 * skill page when a skill of that name is registered, i.e. it is in `registeredNames`), kind (skill.json
 * or SKILL.md), path under its root, the reason when there is one, the loader's warnings, and a native
 * skill's departures from the Agent Skills specification, folded (loaded leniently, reported strictly).
 */
export function LoaderEntriesTable({ entries, caption, withReason, registeredNames }: { entries: LoaderEntry[]; caption: string; withReason: boolean; registeredNames: ReadonlySet<string> }) {
  if (entries.length === 0) return <p className="px-4 py-5 text-center text-sm text-zinc-500">None.</p>;
  return (
    <Table caption={caption}>
      <TableHead>
        <Th>Name</Th>
        <Th>Kind</Th>
        <Th>Manifest</Th>
        {withReason ? <Th>Reason</Th> : <Th>Root</Th>}
      </TableHead>
      <TableBody>
        {entries.map((entry) => (
          <Tr key={`${entry.path}:${entry.name ?? ""}`}>
            <Td label="Name" className="font-mono text-[13px] whitespace-nowrap">
              {entry.name === null ? (
                <EmptyValue label="no name could be read" />
              ) : registeredNames.has(entry.name) ? (
                <Link href={`/skills/${encodeURIComponent(entry.name)}`} className="font-medium text-blue-700 hover:underline">
                  {entry.name}
                </Link>
              ) : (
                entry.name
              )}
            </Td>
            <Td label="Kind" className="text-xs whitespace-nowrap text-zinc-600">{entry.kind === "native" ? "native" : "subprocess"}</Td>
            <Td label="Manifest" className="font-mono text-xs break-all text-zinc-600" title={entry.path}>
              {shortPath(entry)}
              {entry.warnings.length > 0 ? (
                <ul className="mt-1 list-disc space-y-0.5 pl-4 font-sans text-[12px] text-amber-800" aria-label={`warnings of ${entry.name ?? entry.path}`}>
                  {entry.warnings.map((warning) => (
                    <li key={warning}>{warning}</li>
                  ))}
                </ul>
              ) : null}
              {entry.specDeviations && entry.specDeviations.length > 0 ? (
                <details className="mt-1 font-sans text-[12px] text-zinc-600">
                  <summary className="cursor-pointer">
                    {entry.specDeviations.length} departure{entry.specDeviations.length === 1 ? "" : "s"} from the Agent Skills specification
                  </summary>
                  <ul className="mt-0.5 list-disc space-y-0.5 pl-4" aria-label={`departures from the Agent Skills specification of ${entry.name ?? entry.path}`}>
                    {entry.specDeviations.map((deviation) => (
                      <li key={deviation}>{deviation}</li>
                    ))}
                  </ul>
                </details>
              ) : null}
            </Td>
            {withReason ? (
              <Td label="Reason" className="text-[13px] break-words text-red-800">{entry.reason ?? <EmptyValue label="no reason given" />}</Td>
            ) : (
              <Td label="Root" className="font-mono text-xs break-all text-zinc-500">{entry.root}</Td>
            )}
          </Tr>
        ))}
      </TableBody>
    </Table>
  );
}
