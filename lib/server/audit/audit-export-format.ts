import type { AuditEntry, AuditExportFormat } from "@/lib/types/audit";

/** The columns of the CSV export, in order: the AuditEntry fields, `details` as one line of JSON. */
export const AUDIT_CSV_COLUMNS = ["id", "at", "action", "actor", "skill", "callId", "approvalId", "digest", "details"] as const;

/** First characters that make a spreadsheet read a cell as a formula (or, for tab and CR, that some strip before doing so). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180) of `value` (null → empty): a text that a spreadsheet would run as a formula
 * (starting with `=`, `+`, `-`, `@`, tab or CR: CSV injection) gets a `'` in front, which spreadsheets
 * show as text; a text holding `"`, `,`, CR or LF is quoted, its `"` doubled. Pure.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record (RFC 4180: cells joined by `,`, ended by CRLF). Pure. */
function csvRecord(cells: readonly (string | number | null)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/** The CSV export's header record (AUDIT_CSV_COLUMNS), CRLF-ended. */
export const AUDIT_CSV_HEADER = csvRecord(AUDIT_CSV_COLUMNS);

/**
 * `entry` as one record of an export: a CSV record (AUDIT_CSV_COLUMNS, CRLF-ended) or a JSON line
 * (the AuditEntry as JSON, LF-ended; JSON escapes every line break inside its strings, so each entry is
 * exactly one line). Pure.
 */
export function formatAuditRecord(entry: AuditEntry, format: AuditExportFormat): string {
  if (format === "jsonl") return `${JSON.stringify(entry)}\n`;
  return csvRecord([entry.id, entry.at, entry.action, entry.actor, entry.skill, entry.callId, entry.approvalId, entry.digest, JSON.stringify(entry.details)]);
}
