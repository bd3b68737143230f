/**
 * The audit trail's filters and exports (issue 14 point 6), through the HTTP routes on a real test
 * console and database: `GET /api/v1/audit` narrows by actor, skill, action (exact or `prefix.*`) and
 * call, with limit and before; bad or unknown parameters answer 400 `bad_request` naming them;
 * `GET /api/v1/audit/export?format=csv|jsonl` streams the filtered trail, page by page, byte for byte:
 * RFC 4180 quoting, the formula-injection guard, line breaks in details, secret values masked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as exportRoute from "@/app/api/v1/audit/export/route";
import * as auditRoute from "@/app/api/v1/audit/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import { recordAudit } from "@/lib/server/audit/audit-trail";
import { AUDIT_EXPORT_PAGE } from "@/lib/server/audit/export-audit";
import { db } from "@/lib/server/db";
import type { AuditEntry } from "@/lib/types/audit";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";

/** A secret's value, written into one entry's details: the exports must mask it. */
const SECRET_VALUE = "sk-audit-7c1e93b0d4f2a658";

const list = async (query: string, as?: Record<string, string>) => invoke(auditRoute.GET, `/api/v1/audit${query}`, { as });
const entriesOf = async (query: string) => {
  const response = await list(query);
  expect(response.status).toBe(200);
  return ((await response.json()) as { entries: AuditEntry[] }).entries;
};
const exported = (query: string) => invoke(exportRoute.GET, `/api/v1/audit/export${query}`);
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

/** Ids of the seeded entries by a name given to each. */
const ids: Record<string, number> = {};
let viewer: TestPerson;

/** Appends an entry at a fixed time and remembers its id under `name`. */
async function seed(name: string, entry: Parameters<typeof recordAudit>[0]): Promise<void> {
  await recordAudit(entry);
  const row = await db().auditEvent.findFirstOrThrow({ orderBy: { id: "desc" }, select: { id: true } });
  ids[name] = row.id;
}

beforeAll(async () => {
  await setUpTestConsole();
  viewer = await createPerson("viewer");
  const posted = await invoke(secretsRoute.POST, "/api/v1/secrets", { body: { name: "AUDIT_KEY", value: SECRET_VALUE, skills: [] } });
  expect(posted.status).toBe(201);
  const at = (second: number) => new Date(Date.UTC(2026, 11, 6, 19, 12, second));
  await seed("requested", { action: "approval.requested", actor: "alice@console.local", callId: "call-one", approvalId: "appr-1", skill: "wipe_disk", digest: "sha256:aa", details: { persona: "ops" }, at: at(1) });
  await seed("signed", { action: "approval.signed", actor: "bob@console.local", callId: "call-one", approvalId: "appr-1", skill: "wipe_disk", digest: "sha256:aa", details: {}, at: at(2) });
  await seed("tokenRequest", { action: "call.requested", actor: "token:deploy (alice@console.local)", callId: "call-two", skill: "disk_usage", details: { persona: "reader" }, at: at(3) });
  await seed("workerToken", { action: "worker_token.created", actor: "alice@console.local", details: { name: "edge" }, at: at(4) });
  // `_` is a LIKE wildcard: `worker_token.*` must not keep this one.
  await seed("lookalike", { action: "workerxtoken.created", actor: "alice@console.local", details: {}, at: at(5) });
  await seed("formula", {
    action: "export.probe",
    actor: "=HYPERLINK(\"http://evil\",\"x\")",
    skill: "csv_probe",
    details: { reason: "line one\nline two, with \"quotes\"", key: SECRET_VALUE },
    at: at(6),
  });
  await seed("minus", { action: "export.probe", actor: "-2+3", skill: "csv_probe", callId: "@call", details: { note: "tab\there" }, at: at(7) });
  await seed("breaks", { action: "export.probe", actor: "carol@console.local", skill: "csv_probe", approvalId: "line\r\nbreak", details: {}, at: at(8) });
});

describe("GET /api/v1/audit filters", () => {
  it("keeps one actor's entries, exactly (a token of that person is another actor)", async () => {
    const entries = await entriesOf("?actor=alice%40console.local&limit=500");
    expect(entries.map((entry) => entry.id)).toEqual([ids.lookalike, ids.workerToken, ids.requested]);
    const token = await entriesOf(`?actor=${encodeURIComponent("token:deploy (alice@console.local)")}`);
    expect(token.map((entry) => entry.id)).toEqual([ids.tokenRequest]);
  });

  it("keeps one skill's entries", async () => {
    expect((await entriesOf("?skill=wipe_disk")).map((entry) => entry.id)).toEqual([ids.signed, ids.requested]);
    expect(await entriesOf("?skill=no_such_skill")).toEqual([]);
  });

  it("keeps one action, or every action under a prefix ending in .*", async () => {
    expect((await entriesOf("?action=approval.signed")).map((entry) => entry.id)).toEqual([ids.signed]);
    expect((await entriesOf("?action=approval.*")).map((entry) => entry.id)).toEqual([ids.signed, ids.requested]);
    expect((await entriesOf("?action=worker_token.*&actor=alice%40console.local")).map((entry) => entry.id)).toEqual([ids.workerToken]);
    // A prefix is whole words: `approval` alone is an exact action, which none has.
    expect(await entriesOf("?action=approval")).toEqual([]);
  });

  it("combines the filters with each other and with callId, limit and before", async () => {
    expect((await entriesOf("?actor=alice%40console.local&action=approval.*")).map((entry) => entry.id)).toEqual([ids.requested]);
    expect((await entriesOf("?skill=wipe_disk&callId=call-one&action=approval.*&limit=1")).map((entry) => entry.id)).toEqual([ids.signed]);
    expect((await entriesOf(`?skill=wipe_disk&before=${ids.signed}`)).map((entry) => entry.id)).toEqual([ids.requested]);
    expect(await entriesOf("?skill=wipe_disk&callId=call-two")).toEqual([]);
  });

  it("answers a viewer too, and treats an empty parameter as absent", async () => {
    const response = await list("?skill=csv_probe&actor=&action=", viewer.headers);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { entries: AuditEntry[] }).entries.map((entry) => entry.id)).toEqual([ids.breaks, ids.minus, ids.formula]);
  });

  it("masks a secret's value in the entries it answers", async () => {
    const [entry] = await entriesOf(`?action=export.probe&before=${ids.minus}`);
    expect(entry!.details).toEqual({ reason: "line one\nline two, with \"quotes\"", key: "•••" });
  });
});

describe("bad filter values", () => {
  const cases: Array<[string, string]> = [
    ["?limit=0", "audit query: /limit must be >= 1"],
    ["?limit=501", "audit query: /limit must be <= 500"],
    ["?limit=ten", "audit query: /limit must be integer"],
    ["?limit=1.5", "audit query: /limit must be integer"],
    ["?before=-3", "audit query: /before must be >= 1"],
    ["?action=Approval%20signed", 'audit query: /action must match pattern "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*(\\.\\*)?$"'],
    ["?action=approval.**", 'audit query: /action must match pattern "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*(\\.\\*)?$"'],
    ["?actor=alice%0A", 'audit query: /actor must match pattern "^[^\\u0000-\\u001f\\u007f]+$"'],
    [`?skill=${"s".repeat(201)}`, "audit query: /skill must NOT have more than 200 characters"],
    ["?user=alice", "audit query: must NOT have additional properties: user"],
    ["?actor=a&actor=b", "audit query: actor is given more than once"],
    ["?__proto__=x", "audit query: must NOT have additional properties: __proto__"],
  ];
  for (const [query, message] of cases) {
    it(`refuses ${query.slice(0, 40)} with 400 bad_request`, async () => {
      const response = await list(query);
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: "bad_request", message });
    });
  }

  it("refuses an export without a format, with an unknown one, or with a page size", async () => {
    for (const [query, message] of [
      ["", "audit export query: must have required property 'format'"],
      ["?format=xml", "audit export query: /format must be equal to one of the allowed values: csv, jsonl"],
      ["?format=csv&limit=10", "audit export query: must NOT have additional properties: limit"],
      ["?format=csv&action=APPROVAL.*", 'audit export query: /action must match pattern "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*(\\.\\*)?$"'],
    ]) {
      const response = await exported(query!);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-disposition")).toBeNull();
      expect(await errorOf(response)).toEqual({ code: "bad_request", message, details: expect.any(Array) });
    }
  });
});

describe("GET /api/v1/audit/export", () => {
  it("streams CSV: RFC 4180 quoting, CRLF records, formula cells prefixed with a quote, secrets masked", async () => {
    const response = await exported("?format=csv&skill=csv_probe");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-\d{8}-\d{6}\.csv"$/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.text()).toBe(
      "id,at,action,actor,skill,callId,approvalId,digest,details\r\n" +
        `${ids.breaks},2026-12-06T19:12:08.000Z,export.probe,carol@console.local,csv_probe,,"line\r\nbreak",,{}\r\n` +
        `${ids.minus},2026-12-06T19:12:07.000Z,export.probe,'-2+3,csv_probe,'@call,,,"{""note"":""tab\\there""}"\r\n` +
        `${ids.formula},2026-12-06T19:12:06.000Z,export.probe,"'=HYPERLINK(""http://evil"",""x"")",csv_probe,,,,"{""reason"":""line one\\nline two, with \\""quotes\\"""",""key"":""•••""}"\r\n`,
    );
  });

  it("streams JSON lines: one entry per line, line breaks escaped, secrets masked", async () => {
    const response = await exported("?format=jsonl&skill=csv_probe");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-\d{8}-\d{6}\.jsonl"$/);
    expect(await response.text()).toBe(
      `{"id":${ids.breaks},"at":"2026-12-06T19:12:08.000Z","action":"export.probe","actor":"carol@console.local","callId":null,"approvalId":"line\\r\\nbreak","skill":"csv_probe","digest":null,"details":{}}\n` +
        `{"id":${ids.minus},"at":"2026-12-06T19:12:07.000Z","action":"export.probe","actor":"-2+3","callId":"@call","approvalId":null,"skill":"csv_probe","digest":null,"details":{"note":"tab\\there"}}\n` +
        `{"id":${ids.formula},"at":"2026-12-06T19:12:06.000Z","action":"export.probe","actor":"=HYPERLINK(\\"http://evil\\",\\"x\\")","callId":null,"approvalId":null,"skill":"csv_probe","digest":null,"details":{"reason":"line one\\nline two, with \\"quotes\\"","key":"•••"}}\n`,
    );
  });

  it("exports the filters' entries only, and an empty trail as the header alone", async () => {
    expect(await (await exported("?format=csv&action=approval.*&actor=bob%40console.local")).text()).toBe(
      "id,at,action,actor,skill,callId,approvalId,digest,details\r\n" + `${ids.signed},2026-12-06T19:12:02.000Z,approval.signed,bob@console.local,wipe_disk,call-one,appr-1,sha256:aa,{}\r\n`,
    );
    expect(await (await exported("?format=csv&skill=nothing_here")).text()).toBe("id,at,action,actor,skill,callId,approvalId,digest,details\r\n");
    expect(await (await exported("?format=jsonl&skill=nothing_here")).text()).toBe("");
  });

  it("pages through a long trail: every entry once, newest first, one page per chunk", async () => {
    const total = AUDIT_EXPORT_PAGE * 2 + 500;
    const start = new Date(Date.UTC(2026, 0, 1));
    await db().auditEvent.createMany({
      data: Array.from({ length: total }, (_, index) => ({ at: new Date(start.getTime() + index * 1000), action: "bulk.entry", actor: "system", skill: "bulk", details: JSON.stringify({ n: index }) })),
    });
    const response = await exported("?format=jsonl&skill=bulk");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const chunkSizes: number[] = [];
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = decoder.decode(value, { stream: true });
      chunkSizes.push(part.split("\n").length - 1);
      text += part;
    }
    expect(chunkSizes).toEqual([AUDIT_EXPORT_PAGE, AUDIT_EXPORT_PAGE, 500]);
    const numbers = text
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as AuditEntry).details.n);
    expect(numbers).toEqual(Array.from({ length: total }, (_, index) => total - 1 - index));
  });
});
