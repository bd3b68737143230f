import { describe, expect, it } from "vitest";
import type { AuditEntry } from "@/lib/types/audit";
import { AUDIT_CSV_HEADER, csvCell, formatAuditRecord } from "./audit-export-format";

describe("csvCell", () => {
  const cases: Array<[string | number | null, string]> = [
    [null, ""],
    ["", ""],
    [42, "42"],
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ["cr\ronly", '"cr\ronly"'],
    ["=SUM(A1:A2)", "'=SUM(A1:A2)"],
    ["+1", "'+1"],
    ["-1", "'-1"],
    ["@cmd", "'@cmd"],
    ["\tlead", "'\tlead"],
    ["\rlead", "\"'\rlead\""],
    ['=HYPERLINK("x","y")', '"\'=HYPERLINK(""x"",""y"")"'],
    ["a=b", "a=b"],
  ];
  for (const [value, cell] of cases) {
    it(`writes ${JSON.stringify(value)} as ${JSON.stringify(cell)}`, () => expect(csvCell(value)).toBe(cell));
  }
});

describe("formatAuditRecord", () => {
  const entry: AuditEntry = {
    id: 7,
    at: "2026-12-06T19:12:03.000Z",
    action: "approval.denied",
    actor: "bob@console.local",
    callId: "c1",
    approvalId: null,
    skill: "wipe_disk",
    digest: "sha256:ab",
    details: { reason: "no,\nnot today" },
  };

  it("writes a CSV record in the header's column order, CRLF-ended", () => {
    expect(AUDIT_CSV_HEADER).toBe("id,at,action,actor,skill,callId,approvalId,digest,details\r\n");
    expect(formatAuditRecord(entry, "csv")).toBe('7,2026-12-06T19:12:03.000Z,approval.denied,bob@console.local,wipe_disk,c1,,sha256:ab,"{""reason"":""no,\\nnot today""}"\r\n');
  });

  it("writes a JSON line, LF-ended, with the line break inside escaped", () => {
    expect(formatAuditRecord(entry, "jsonl")).toBe(
      '{"id":7,"at":"2026-12-06T19:12:03.000Z","action":"approval.denied","actor":"bob@console.local","callId":"c1","approvalId":null,"skill":"wipe_disk","digest":"sha256:ab","details":{"reason":"no,\\nnot today"}}\n',
    );
  });
});
