/**
 * ongrid persona `.md` import (DESIGN.md "Integrations", issue 14 point 2) through
 * `POST /api/v1/personas/import/ongrid` and a real database: the preview stores nothing, the import
 * stores every persona at once, and a file that cannot be mapped without widening is refused.
 * The files in tests/fixtures/ongrid/personas follow ongrid's agents/*.md format (chatruntime Agent).
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as importRoute from "@/app/api/v1/personas/import/ongrid/route";
import { db } from "@/lib/server/db";
import type { OngridPersonaImportResult } from "@/lib/types/ongrid";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, errorOf, type Sender } from "./approvals-fixtures";

const FIXTURES = path.join(__dirname, "..", "fixtures", "ongrid", "personas");
let operator: TestPerson;

function file(name: string): { name: string; text: string } {
  return { name, text: fs.readFileSync(path.join(FIXTURES, name), "utf8") };
}

function post(body: unknown, as: Sender = "admin"): Promise<Response> {
  return invoke(importRoute.POST, "/api/v1/personas/import/ongrid", { body, as });
}

const DISK = {
  file: "specialist-disk.md",
  persona: {
    name: "specialist-disk",
    description: "Disk and filesystem specialist",
    permission_mode: "mutating-with-confirm",
    skills: { allow: ["disk_usage", "find_large_files", "stat_file"], deny: ["*_restart"] },
  },
  replaces: false,
  notes: [
    "Not imported (personas here have no such field): when_to_use, capabilities, can_delegate, max_turns, model.",
    "Not imported: the body, ongrid's system prompt (86 characters).",
  ],
};

const REVIEWER = {
  file: "reviewer.md",
  persona: { name: "reviewer", description: "Second reviewer of mutating proposals", permission_mode: "read-only", skills: { allow: [], deny: ["*_skill", "run_shell"] } },
  replaces: true,
  notes: [
    "tools is empty: ongrid would let this persona use every tool; here it calls nothing until skills.allow lists skills.",
    "permission_mode is absent: imported as read-only, the narrowest mode.",
    "Not imported (personas here have no such field): when_to_use, background.",
    "Not imported (not an ongrid persona field): effort.",
    "Not imported: the body, ongrid's system prompt (42 characters).",
  ],
};

async function storedPersona(name: string) {
  return db().persona.findUnique({ where: { name }, select: { permissionMode: true, allow: true, deny: true, categories: true, description: true } });
}

beforeAll(async () => {
  await setUpTestConsole();
  await createPersonaRow("reviewer", "dual-sign-required", ["*"]);
  operator = await createPerson("operator");
});

describe("POST /api/v1/personas/import/ongrid", () => {
  it("previews the mapping of every file without storing anything", async () => {
    const response = await post({ files: [file("specialist-disk.md"), file("reviewer.md")], save: false });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ saved: false, personas: [DISK, REVIEWER], created: [], replaced: [] });
    expect(await storedPersona("specialist-disk")).toBeNull();
    expect(await storedPersona("reviewer")).toMatchObject({ permissionMode: "dual-sign-required", allow: '["*"]' });
  });

  it("imports them all at once, replacing the persona of the same name, with one audit entry", async () => {
    const response = await post({ files: [file("specialist-disk.md"), file("reviewer.md")], save: true });
    expect(response.status).toBe(200);
    const result = (await response.json()) as OngridPersonaImportResult;
    expect(result).toEqual({ saved: true, personas: [DISK, REVIEWER], created: ["specialist-disk"], replaced: ["reviewer"] });
    expect(await storedPersona("specialist-disk")).toEqual({
      permissionMode: "mutating-with-confirm",
      allow: '["disk_usage","find_large_files","stat_file"]',
      deny: '["*_restart"]',
      categories: null,
      description: "Disk and filesystem specialist",
    });
    expect(await storedPersona("reviewer")).toEqual({ permissionMode: "read-only", allow: "[]", deny: '["*_skill","run_shell"]', categories: null, description: "Second reviewer of mutating proposals" });
    const audit = await db().auditEvent.findMany({ where: { action: "persona.imported" }, select: { details: true } });
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.details!)).toMatchObject({ source: "ongrid", files: ["specialist-disk.md", "reviewer.md"], created: ["specialist-disk"], replaced: ["reviewer"] });
  });

  it("refuses a tools entry that would widen into a pattern, naming the file, and stores nothing", async () => {
    const before = await db().persona.count();
    const response = await post({ files: [file("specialist-disk.md"), file("wildcard-tools.md")], save: true });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: "bad_request",
        message: 'wildcard-tools.md: tools[0] "host_*": ongrid allows only the tool of exactly that name, and here it would be a pattern allowing more skills; list the skills by name',
        details: {
          file: "wildcard-tools.md",
          field: "tools",
          problems: [
            {
              file: "wildcard-tools.md",
              field: "tools",
              message: 'wildcard-tools.md: tools[0] "host_*": ongrid allows only the tool of exactly that name, and here it would be a pattern allowing more skills; list the skills by name',
            },
          ],
        },
      },
    });
    expect(await db().persona.count()).toBe(before);
  });

  it.each([
    ["no-frontmatter.md", "# just markdown\n", "no-frontmatter.md: is not an ongrid persona: it must start with a --- line opening its YAML frontmatter"],
    ["no-when.md", "---\nname: a\ndescription: b\n---\n", "no-when.md: frontmatter is missing the required field when_to_use (ongrid refuses the file too)"],
    ["mode.md", "---\nname: a\ndescription: b\nwhen_to_use: c\npermission_mode: admin\n---\n", 'mode.md: permission_mode "admin" must be one of read-only, mutating-with-confirm, dual-sign-required'],
    ["tools.md", "---\nname: a\ndescription: b\nwhen_to_use: c\ntools: Read, Grep\n---\n", "tools.md: tools must be a list of tool names (ongrid reads it as a YAML list)"],
    ["category.md", "---\nname: a\ndescription: b\nwhen_to_use: c\ntools: [category:ops]\n---\n", 'category.md: tools[0] "category:ops": ongrid allows only the tool of exactly that name, and here it would be a pattern allowing more skills; list the skills by name'],
    ["negated.md", "---\nname: a\ndescription: b\nwhen_to_use: c\ndisallowed_tools: ['!x']\n---\n", 'negated.md: disallowed_tools[0] "!x": an entry starting with "!" has no meaning in skills.deny; remove it'],
    ["Name.md", "---\nname: Big Name\ndescription: b\nwhen_to_use: c\n---\n", 'Name.md: name "Big Name" must be 1-64 lower-case letters, digits, "_" or "-", starting with a letter or digit'],
  ])("refuses %s with 400 and the reason", async (name, text, message) => {
    const response = await post({ files: [{ name, text }], save: false });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toBe(message);
  });

  it("refuses two files naming the same persona", async () => {
    const response = await post({ files: [file("reviewer.md"), { ...file("reviewer.md"), name: "copy.md" }], save: false });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toBe('copy.md: persona "reviewer" is also in reviewer.md; import one of them');
  });

  it("names every file that cannot be imported in one answer, and stores nothing", async () => {
    const before = await db().persona.count();
    const response = await post(
      {
        files: [
          file("specialist-disk.md"),
          { name: "mode.md", text: "---\nname: a\ndescription: b\nwhen_to_use: c\npermission_mode: admin\n---\n" },
          { ...file("specialist-disk.md"), name: "copy.md" },
          { name: "no-frontmatter.md", text: "# just markdown\n" },
        ],
        save: true,
      },
    );
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { message: string; details: unknown } }).error;
    expect(error.message).toBe(
      '3 files cannot be imported: mode.md: permission_mode "admin" must be one of read-only, mutating-with-confirm, dual-sign-required; ' +
        'copy.md: persona "specialist-disk" is also in specialist-disk.md; import one of them; ' +
        "no-frontmatter.md: is not an ongrid persona: it must start with a --- line opening its YAML frontmatter",
    );
    expect((error.details as { file: string; problems: Array<{ file: string; field?: string }> }).problems.map((problem) => [problem.file, problem.field ?? null])).toEqual([
      ["mode.md", "permission_mode"],
      ["copy.md", "name"],
      ["no-frontmatter.md", null],
    ]);
    expect((error.details as { file: string }).file).toBe("mode.md");
    expect(await db().persona.count()).toBe(before);
  });

  it("refuses a body that is not {files, save}", async () => {
    const response = await post({ files: [], save: true });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toBe("an ongrid persona import: /files must NOT have fewer than 1 items");
  });

  it("is for admins: an operator gets 403 and nothing is stored", async () => {
    const response = await post({ files: [file("specialist-disk.md")], save: true }, operator.headers);
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("forbidden");
  });
});
