import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Prisma } from "@prisma/client";
import type { AuditExportFormat, AuditFilters } from "@/lib/types/audit";
import { db } from "../db";
import { maskOfAllSecrets } from "../secrets/all-secrets-mask";
import type { SecretMask } from "../secrets/secret-masking";
import { AUDIT_CSV_HEADER, formatAuditRecord } from "./audit-export-format";
import { auditWhere, toAuditEntry } from "./audit-query";

/**
 * Entries read and written per page of an export: each page's read and its formatting take a few to
 * ~25 ms of the event loop each on a loaded 2-core machine (1,000 took up to 50 ms each).
 */
export const AUDIT_EXPORT_PAGE = 500;

/** What an export download is: its body and the headers that make it a download. */
export interface AuditExport {
  body: ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
}

/**
 * The audit trail that `filters` keep (below `before` when given), newest first, as a CSV (RFC 4180,
 * with a header record; audit-export-format.ts) or JSON-lines download (issue 14 point 6). The body is
 * streamed: each read of it reads the next AUDIT_EXPORT_PAGE entries by id (keyset paging: entries
 * written during the export do not shift the pages, and are not in it), formats them and yields to the
 * event loop, so a trail of any length is never held in memory at once and a slow client only slows
 * its own reads. Secret values are masked (maskOfAllSecrets) and an action prefix resolved
 * (auditWhere), both once, when the first page is read. `now` dates the file name
 * (`audit-20261206-191203.csv`). A database error mid-way ends the body with an error.
 */
export function openAuditExport(filters: AuditFilters & { before?: number }, format: AuditExportFormat, now: Date = new Date()): AuditExport {
  const encoder = new TextEncoder();
  let before = filters.before;
  let mask: SecretMask | null = null;
  let where: Prisma.AuditEventWhereInput = {};
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (mask === null) {
          where = await auditWhere(filters);
          mask = await maskOfAllSecrets();
          if (format === "csv") controller.enqueue(encoder.encode(AUDIT_CSV_HEADER));
        }
        const rows = await db().auditEvent.findMany({ where: before === undefined ? where : { ...where, id: { lt: before } }, orderBy: { id: "desc" }, take: AUDIT_EXPORT_PAGE });
        // The read (synchronous in SQLite's driver) and the formatting each get their own turn.
        await yieldToEventLoop();
        let text = "";
        for (const row of rows) text += formatAuditRecord(toAuditEntry(row, mask), format);
        if (text !== "") controller.enqueue(encoder.encode(text));
        before = rows.at(-1)?.id ?? before;
        if (rows.length < AUDIT_EXPORT_PAGE) controller.close();
        else await yieldToEventLoop();
      },
    },
    // One page waits at most: the next is read when the client has taken it.
    { highWaterMark: 1 },
  );
  const stamp = now.toISOString().replace(/\.\d+Z$/, "").replace(/[-:]/g, "").replace("T", "-");
  return {
    body,
    contentType: format === "csv" ? "text/csv; charset=utf-8; header=present" : "application/x-ndjson; charset=utf-8",
    filename: `audit-${stamp}.${format}`,
  };
}
