import { beforeAll, describe, expect, it } from "vitest";
import * as personaRoute from "@/app/api/v1/personas/[name]/route";
import * as exportRoute from "@/app/api/v1/personas/export/route";
import * as importRoute from "@/app/api/v1/personas/import/route";
import * as personasRoute from "@/app/api/v1/personas/route";
import * as skillsRoute from "@/app/api/v1/skills/route";
import * as tokenRoute from "@/app/api/v1/tokens/[id]/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import { listAudit } from "@/lib/server/audit/audit-trail";
import type { Persona } from "@/lib/types/persona";
import type { Skill } from "@/lib/types/skill";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, TEST_ADMIN, type TestPerson } from "../helpers/test-people";

let testConsole: TestConsole;
let viewer: TestPerson;

const YAML = { "content-type": "text/yaml" };

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "disk-usage", { name: "disk_usage", category: "ops" }, 'echo "{}"');
  writeSkill(testConsole.root, "disk-cleaner", { name: "disk_cleaner", category: "system", class: "dangerous" }, 'echo "{}"');
  writeSkill(testConsole.root, "kill-process", { name: "kill_process", category: "ops", class: "dangerous" }, 'echo "{}"');
  writeSkill(testConsole.root, "log-tail", { name: "log_tail", category: "logs" }, 'echo "{}"');
  viewer = await createPerson("viewer");
});

async function errorOf(response: Response): Promise<{ code: string; message: string; details?: unknown }> {
  return ((await response.json()) as { error: { code: string; message: string; details?: unknown } }).error;
}

function createBody(name: string, extra: Record<string, unknown> = {}) {
  return { name, description: `persona ${name}`, permission_mode: "mutating-with-confirm", skills: { allow: ["category:ops"], deny: [] }, ...extra };
}

async function create(body: unknown): Promise<Response> {
  return invoke(personasRoute.POST, "/api/v1/personas", { body });
}

async function getPersona(name: string): Promise<Response> {
  return invoke(personaRoute.GET, `/api/v1/personas/${name}`, { params: { name } });
}

async function exportYaml(): Promise<string> {
  const response = await invoke(exportRoute.GET, "/api/v1/personas/export");
  expect(response.status).toBe(200);
  return response.text();
}

async function importYaml(text: string, as?: Record<string, string>): Promise<Response> {
  return invoke(importRoute.POST, "/api/v1/personas/import", { body: text, headers: YAML, as });
}

describe("GET /api/v1/personas", () => {
  it("lists the default persona created on first start, with the YAML field names", async () => {
    const response = await invoke(personasRoute.GET, "/api/v1/personas");
    expect(response.status).toBe(200);
    const { personas } = (await response.json()) as { personas: Persona[] };
    expect(personas.find((persona) => persona.name === "default")).toEqual({
      name: "default",
      description: "Runs safe skills only. Calls that name no persona run under it.",
      permission_mode: "read-only",
      skills: { allow: ["*"], deny: [] },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it("answers 401 without a session or token", async () => {
    const response = await invoke(personasRoute.GET, "/api/v1/personas", { as: "anonymous" });
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe("unauthenticated");
  });

  it("serves one persona to a viewer, and 404 for an unknown name", async () => {
    const found = await invoke(personaRoute.GET, "/api/v1/personas/default", { params: { name: "default" }, as: viewer.headers });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { persona: Persona }).persona.permission_mode).toBe("read-only");
    const missing = await getPersona("ghost");
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toEqual({ code: "not_found", message: 'no persona named "ghost"' });
  });
});

describe("POST /api/v1/personas", () => {
  it("creates a persona (201) that GET then serves, and audits it", async () => {
    const body = { ...createBody("ops-oncall"), skills: { allow: ["category:ops", "disk_*"], deny: ["kill_process"] }, categories: ["ops", "system"] };
    const response = await create(body);
    expect(response.status).toBe(201);
    const { persona } = (await response.json()) as { persona: Persona };
    expect(persona).toEqual({ ...body, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(((await (await getPersona("ops-oncall")).json()) as { persona: Persona }).persona).toEqual(persona);
    const [entry] = await listAudit({ limit: 1 });
    expect(entry).toMatchObject({ action: "persona.created", actor: TEST_ADMIN.email, details: { persona: body } });
  });

  it("fills in the defaults: empty description, empty lists, every category", async () => {
    const response = await create({ name: "bare", permission_mode: "read-only" });
    expect(response.status).toBe(201);
    const { persona } = (await response.json()) as { persona: Persona };
    expect(persona).toEqual({ name: "bare", description: "", permission_mode: "read-only", skills: { allow: [], deny: [] }, createdAt: expect.any(String), updatedAt: expect.any(String) });
  });

  it("answers 409 for a taken name", async () => {
    expect((await create(createBody("twice"))).status).toBe(201);
    const again = await create(createBody("twice"));
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toEqual({ code: "conflict", message: 'a persona named "twice" already exists; replace it with PUT /api/v1/personas/twice' });
  });

  const invalid: Array<[string, unknown, string, { persona: string | null; field: string }]> = [
    ["a misspelt field", { ...createBody("typo"), skils: { allow: ["*"] } }, "skils is not a persona field (a persona has name, description, permission_mode, skills, categories)", { persona: "typo", field: "skils" }],
    ["a misspelt skills field", createBody("typo", { skills: { alow: ["*"] } }), "skills.alow is not a persona field (skills has allow, deny)", { persona: "typo", field: "skills.alow" }],
    ["no name", { permission_mode: "read-only" }, "name is required", { persona: null, field: "name" }],
    ["an upper-case name", createBody("Ops"), 'name "Ops" must be 1-64 lower-case letters, digits, "_" or "-", starting with a letter or digit', { persona: "Ops", field: "name" }],
    ["a name of 65 characters", createBody("a".repeat(65)), `name "${"a".repeat(65)}" must be 1-64 lower-case letters, digits, "_" or "-", starting with a letter or digit`, { persona: "a".repeat(65), field: "name" }],
    ["a reserved name", createBody("export"), 'name "export" is reserved (it is a path under /api/v1/personas)', { persona: "export", field: "name" }],
    ["no permission_mode", { name: "nomode" }, "permission_mode is required (one of read-only, mutating-with-confirm, dual-sign-required)", { persona: "nomode", field: "permission_mode" }],
    ["an unknown permission_mode", createBody("mode", { permission_mode: "yolo" }), 'permission_mode "yolo" must be one of read-only, mutating-with-confirm, dual-sign-required', { persona: "mode", field: "permission_mode" }],
    ["a description that is not a string", createBody("desc", { description: 5 }), "description must be a string", { persona: "desc", field: "description" }],
    ["a description over 2000 characters", createBody("desc", { description: "x".repeat(2001) }), "description is longer than 2000 characters", { persona: "desc", field: "description" }],
    ["skills.allow that is a string", createBody("lists", { skills: { allow: "*" } }), "skills.allow must be a list of skill name globs or category:<glob>", { persona: "lists", field: "skills.allow" }],
    ["an empty allow entry", createBody("lists", { skills: { allow: ["disk_usage", ""] } }), "skills.allow[1] must be a non-empty string (one of the skill name globs or category:<glob>)", { persona: "lists", field: "skills.allow[1]" }],
    ["a deny entry that is a number", createBody("lists", { skills: { allow: ["*"], deny: [7] } }), "skills.deny[0] must be a non-empty string (one of the skill name globs or category:<glob>)", { persona: "lists", field: "skills.deny[0]" }],
    ["201 allow entries", createBody("lists", { skills: { allow: Array.from({ length: 201 }, (_, index) => `skill_${index}`) } }), "skills.allow has 201 entries; at most 200 are allowed", { persona: "lists", field: "skills.allow" }],
    ["a negated entry", createBody("lists", { skills: { allow: ["!kill_process"] } }), 'skills.allow[0] "!kill_process": negation is not supported; list the skill in skills.deny instead', { persona: "lists", field: "skills.allow[0]" }],
    ["categories null", createBody("cats", { categories: null }), "categories must be a list of category names; leave it out for every category", { persona: "cats", field: "categories" }],
    ["categories that is not a list", createBody("cats", { categories: "ops" }), "categories must be a list of category names", { persona: "cats", field: "categories" }],
  ];

  it.each(invalid)("answers 400 naming the field for %s, and creates nothing", async (_title, body, message, details) => {
    const before = await exportYaml();
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({ code: "bad_request", message, details });
    expect(await exportYaml()).toBe(before);
  });

  it("accepts 200 entries in a list", async () => {
    const response = await create(createBody("many", { skills: { allow: Array.from({ length: 200 }, (_, index) => `skill_${index}`), deny: [] } }));
    expect(response.status).toBe(201);
  });

  it("answers 400 for a body that is not an object", async () => {
    const response = await create(["not", "a", "persona"]);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({ code: "bad_request", message: "persona must be a mapping with name, description, permission_mode, skills, categories", details: { persona: null, field: "persona" } });
  });

  it("refuses a viewer (403) and an anonymous caller (401)", async () => {
    const asViewer = await invoke(personasRoute.POST, "/api/v1/personas", { body: createBody("by-viewer"), as: viewer.headers });
    expect(asViewer.status).toBe(403);
    expect(await errorOf(asViewer)).toEqual({ code: "forbidden", message: `this needs the admin role; ${viewer.email} is a viewer` });
    const anonymous = await invoke(personasRoute.POST, "/api/v1/personas", { body: createBody("by-nobody"), as: "anonymous" });
    expect(anonymous.status).toBe(401);
    expect((await getPersona("by-viewer")).status).toBe(404);
  });

  it("refuses an approver (403): persona writes are admin-only", async () => {
    const approver = await createPerson("approver");
    const response = await invoke(personasRoute.POST, "/api/v1/personas", { body: createBody("by-approver"), as: approver.headers });
    expect(response.status).toBe(403);
    expect(await errorOf(response)).toEqual({ code: "forbidden", message: `this needs the admin role; ${approver.email} is an approver` });
  });
});

describe("PUT /api/v1/personas/{name}", () => {
  it("replaces every field, keeps createdAt, and audits before and after", async () => {
    const created = ((await (await create(createBody("replace-me", { categories: ["ops"] }))).json()) as { persona: Persona }).persona;
    const body = { description: "now dangerous", permission_mode: "dual-sign-required", skills: { allow: ["*"], deny: ["category:logs"] } };
    const response = await invoke(personaRoute.PUT, "/api/v1/personas/replace-me", { method: "PUT", body, params: { name: "replace-me" } });
    expect(response.status).toBe(200);
    const { persona } = (await response.json()) as { persona: Persona };
    expect(persona).toEqual({ name: "replace-me", ...body, createdAt: created.createdAt, updatedAt: expect.any(String) });
    expect(persona.categories).toBeUndefined();
    const [entry] = await listAudit({ limit: 1 });
    expect(entry).toMatchObject({ action: "persona.updated", actor: TEST_ADMIN.email, details: { persona: { name: "replace-me", ...body }, before: { categories: ["ops"] } } });
  });

  it("accepts a persona as GET served it (with its times) and edits the default persona", async () => {
    const { persona } = (await (await getPersona("default")).json()) as { persona: Persona };
    const response = await invoke(personaRoute.PUT, "/api/v1/personas/default", { method: "PUT", body: { ...persona, description: "edited default" }, params: { name: "default" } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { persona: Persona }).persona.description).toBe("edited default");
  });

  it("refuses a rename (400), an unknown persona (404) and a viewer (403)", async () => {
    const rename = await invoke(personaRoute.PUT, "/api/v1/personas/default", { method: "PUT", body: createBody("other"), params: { name: "default" } });
    expect(rename.status).toBe(400);
    expect(await errorOf(rename)).toEqual({ code: "bad_request", message: 'name "other" differs from the persona in the path ("default"); personas cannot be renamed', details: { persona: "default", field: "name" } });
    const missing = await invoke(personaRoute.PUT, "/api/v1/personas/ghost", { method: "PUT", body: { permission_mode: "read-only" }, params: { name: "ghost" } });
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toEqual({ code: "not_found", message: 'no persona named "ghost"' });
    const asViewer = await invoke(personaRoute.PUT, "/api/v1/personas/default", { method: "PUT", body: { permission_mode: "dual-sign-required" }, params: { name: "default" }, as: viewer.headers });
    expect(asViewer.status).toBe(403);
    expect(((await (await getPersona("default")).json()) as { persona: Persona }).persona.permission_mode).toBe("read-only");
  });

  it("refuses a typo in a replacement (400) and leaves the persona as it was", async () => {
    await create(createBody("keep-me"));
    const response = await invoke(personaRoute.PUT, "/api/v1/personas/keep-me", { method: "PUT", body: { permission_mode: "read-only", skils: { allow: ["*"] } }, params: { name: "keep-me" } });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toBe("skils is not a persona field (a persona has name, description, permission_mode, skills, categories)");
    expect(((await (await getPersona("keep-me")).json()) as { persona: Persona }).persona.permission_mode).toBe("mutating-with-confirm");
  });
});

describe("DELETE /api/v1/personas/{name}", () => {
  async function remove(name: string, as?: Record<string, string>): Promise<Response> {
    return invoke(personaRoute.DELETE, `/api/v1/personas/${name}`, { method: "DELETE", params: { name }, as });
  }

  it("deletes a persona (200 with what was deleted), audits it, then 404", async () => {
    await create(createBody("short-lived"));
    const response = await remove("short-lived");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { persona: Persona }).persona.name).toBe("short-lived");
    const [entry] = await listAudit({ limit: 1 });
    expect(entry).toMatchObject({ action: "persona.deleted", actor: TEST_ADMIN.email, details: { persona: { name: "short-lived" } } });
    expect((await getPersona("short-lived")).status).toBe(404);
    const again = await remove("short-lived");
    expect(again.status).toBe(404);
    expect(await errorOf(again)).toEqual({ code: "not_found", message: 'no persona named "short-lived"' });
  });

  it("refuses to delete the default persona (409)", async () => {
    const response = await remove("default");
    expect(response.status).toBe(409);
    expect(await errorOf(response)).toEqual({ code: "conflict", message: "the default persona cannot be deleted: calls that name no persona run under it (it may be edited)" });
    expect((await getPersona("default")).status).toBe(200);
  });

  it("refuses (409, naming them) while unrevoked tokens use the persona, and deletes once they are revoked", async () => {
    await create(createBody("agent-persona"));
    const ids: string[] = [];
    for (const name of ["ci-bot", "night-job"]) {
      const token = await invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona: "agent-persona", name } });
      expect(token.status).toBe(201);
      ids.push(((await token.json()) as { info: { id: string } }).info.id);
    }
    const refused = await remove("agent-persona");
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toEqual({
      code: "conflict",
      message: `persona "agent-persona" is used by API tokens "ci-bot" (${TEST_ADMIN.email}), "night-job" (${TEST_ADMIN.email}); revoke them first`,
      details: { tokens: [{ id: ids[0], name: "ci-bot", owner: TEST_ADMIN.email }, { id: ids[1], name: "night-job", owner: TEST_ADMIN.email }] },
    });
    await invoke(tokenRoute.DELETE, `/api/v1/tokens/${ids[0]}`, { method: "DELETE", params: { id: ids[0]! } });
    const stillOne = await remove("agent-persona");
    expect(stillOne.status).toBe(409);
    expect((await errorOf(stillOne)).message).toBe(`persona "agent-persona" is used by API token "night-job" (${TEST_ADMIN.email}); revoke it first`);
    await invoke(tokenRoute.DELETE, `/api/v1/tokens/${ids[1]}`, { method: "DELETE", params: { id: ids[1]! } });
    expect((await remove("agent-persona")).status).toBe(200);
  });

  it("refuses a viewer (403)", async () => {
    await create(createBody("viewer-cannot-delete"));
    const response = await remove("viewer-cannot-delete", viewer.headers);
    expect(response.status).toBe(403);
    expect(await errorOf(response)).toEqual({ code: "forbidden", message: `this needs the admin role; ${viewer.email} is a viewer` });
    expect((await getPersona("viewer-cannot-delete")).status).toBe(200);
  });
});

describe("YAML export and import", () => {
  const opsOncall = `- name: yaml-ops
  description: On-call operator agent
  permission_mode: dual-sign-required
  skills:
    allow: ["category:ops", "disk_*"]
    deny: ["kill_process"]
  categories: [ops, system]
`;

  it("imports the documented format (200, created), and exports it back in the same format", async () => {
    const response = await importYaml(opsOncall);
    expect(response.status).toBe(200);
    const result = (await response.json()) as { personas: Persona[]; created: string[]; replaced: string[] };
    expect(result.created).toEqual(["yaml-ops"]);
    expect(result.replaced).toEqual([]);
    expect(result.personas[0]).toEqual({
      name: "yaml-ops",
      description: "On-call operator agent",
      permission_mode: "dual-sign-required",
      skills: { allow: ["category:ops", "disk_*"], deny: ["kill_process"] },
      categories: ["ops", "system"],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const exported = await exportYaml();
    expect(exported).toContain(`- name: yaml-ops
  description: On-call operator agent
  permission_mode: dual-sign-required
  skills:
    allow: [category:ops, disk_*]
    deny: [kill_process]
  categories: [ops, system]
`);
    const [entry] = await listAudit({ limit: 1 });
    expect(entry).toMatchObject({ action: "persona.imported", actor: TEST_ADMIN.email, details: { created: ["yaml-ops"], replaced: [] } });
  });

  it("serves the export as a text/yaml download", async () => {
    const response = await invoke(exportRoute.GET, "/api/v1/personas/export", { as: viewer.headers });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/yaml; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="personas.yaml"');
  });

  it("round-trips: importing the export replaces every persona with itself, and exports the same text", async () => {
    const before = await exportYaml();
    const { personas } = (await (await invoke(personasRoute.GET, "/api/v1/personas")).json()) as { personas: Persona[] };
    const response = await importYaml(before);
    expect(response.status).toBe(200);
    const result = (await response.json()) as { created: string[]; replaced: string[] };
    expect(result.created).toEqual([]);
    expect(result.replaced).toEqual(personas.map((persona) => persona.name));
    expect(await exportYaml()).toBe(before);
    const after = (await (await invoke(personasRoute.GET, "/api/v1/personas")).json()) as { personas: Persona[] };
    expect(after.personas.map(({ updatedAt: _u, ...rest }) => rest)).toEqual(personas.map(({ updatedAt: _u, ...rest }) => rest));
  });

  it("accepts a single mapping and application/yaml, replacing a stored persona", async () => {
    const response = await invoke(importRoute.POST, "/api/v1/personas/import", {
      body: "name: yaml-ops\npermission_mode: read-only\nskills: {allow: ['*']}\n",
      headers: { "content-type": "application/yaml; charset=utf-8" },
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { personas: Persona[]; created: string[]; replaced: string[] };
    expect(result.replaced).toEqual(["yaml-ops"]);
    expect(result.personas[0]).toMatchObject({ name: "yaml-ops", description: "", permission_mode: "read-only", skills: { allow: ["*"], deny: [] } });
    expect(result.personas[0]!.categories).toBeUndefined();
  });

  const broken: Array<[string, string, string, unknown]> = [
    [
      "a bad field in the second persona",
      "- name: yaml-first\n  permission_mode: read-only\n- name: yaml-second\n  permission_mode: root\n",
      'persona #2 ("yaml-second"): permission_mode "root" must be one of read-only, mutating-with-confirm, dual-sign-required',
      { persona: "yaml-second", field: "permission_mode" },
    ],
    [
      "a misspelt field",
      "- name: yaml-first\n  permission_mode: read-only\n  skils:\n    allow: ['*']\n",
      'persona #1 ("yaml-first"): skils is not a persona field (a persona has name, description, permission_mode, skills, categories)',
      { persona: "yaml-first", field: "skils" },
    ],
    [
      "the API's times, which the YAML format does not have",
      "- name: yaml-first\n  permission_mode: read-only\n  createdAt: 2026-01-01\n",
      'persona #1 ("yaml-first"): createdAt is not a persona field (a persona has name, description, permission_mode, skills, categories)',
      { persona: "yaml-first", field: "createdAt" },
    ],
    [
      "a list entry that is a mapping",
      "- name: yaml-first\n  permission_mode: read-only\n  skills:\n    deny: [{a: 1}]\n",
      'persona #1 ("yaml-first"): skills.deny[0] must be a non-empty string (one of the skill name globs or category:<glob>)',
      { persona: "yaml-first", field: "skills.deny[0]" },
    ],
    [
      "a persona without a name",
      "- name: yaml-first\n  permission_mode: read-only\n- permission_mode: read-only\n",
      "persona #2: name is required",
      { persona: null, field: "name" },
    ],
    [
      "a name listed twice",
      "- name: yaml-first\n  permission_mode: read-only\n- name: yaml-first\n  permission_mode: dual-sign-required\n",
      'persona #2: name "yaml-first" appears twice in the YAML',
      { persona: "yaml-first", field: "name" },
    ],
    [
      "three invalid personas, every one named",
      "- name: yaml-first\n  permission_mode: root\n- name: yaml-ok\n  permission_mode: read-only\n- permission_mode: read-only\n- name: yaml-first\n  permission_mode: read-only\n  skils: {}\n",
      '3 personas in the YAML are invalid; nothing was imported: persona #1 ("yaml-first"): permission_mode "root" must be one of read-only, mutating-with-confirm, dual-sign-required; persona #3: name is required; persona #4 ("yaml-first"): skils is not a persona field (a persona has name, description, permission_mode, skills, categories)',
      {
        problems: [
          { message: 'persona #1 ("yaml-first"): permission_mode "root" must be one of read-only, mutating-with-confirm, dual-sign-required', persona: "yaml-first", field: "permission_mode" },
          { message: "persona #3: name is required", persona: null, field: "name" },
          { message: 'persona #4 ("yaml-first"): skils is not a persona field (a persona has name, description, permission_mode, skills, categories)', persona: "yaml-first", field: "skils" },
        ],
      },
    ],
    ["a scalar", "just text\n", 'persona #1: persona must be a mapping with name, description, permission_mode, skills, categories', { persona: null, field: "persona" }],
    ["an empty list", "[]\n", "the YAML lists no personas", undefined],
    ["an empty document", "# nothing\n", "the YAML is empty; it must hold a list of personas or one persona", undefined],
    ["a syntax error", "- name: yaml-first\n  permission_mode: [read-only\n", "the YAML does not parse: Flow sequence in block collection must be sufficiently indented and end with a ] at line 3, column 1", undefined],
    ["a duplicate key", "name: yaml-first\nname: yaml-second\npermission_mode: read-only\n", "the YAML does not parse: Map keys must be unique at line 2, column 1", undefined],
    ["two documents", "name: yaml-first\npermission_mode: read-only\n---\nname: yaml-second\npermission_mode: read-only\n", "the YAML does not parse: Source contains multiple documents; please use YAML.parseAllDocuments() at line 3, column 1", undefined],
    ["an unknown tag", "name: !!js/function yaml-first\npermission_mode: read-only\n", "the YAML does not parse: Unresolved tag: tag:yaml.org,2002:js/function at line 1, column 7", undefined],
    [
      "an alias bomb",
      `a: &a ["x", "x", "x", "x", "x", "x", "x", "x"]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n`,
      "the YAML does not parse: Excessive alias count indicates a resource exhaustion attack",
      undefined,
    ],
  ];

  it.each(broken)("answers 400 for %s, and changes nothing", async (_title, text, message, details) => {
    const before = await exportYaml();
    const response = await importYaml(text);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual(details === undefined ? { code: "bad_request", message } : { code: "bad_request", message, details });
    expect(await exportYaml()).toBe(before);
    expect((await getPersona("yaml-first")).status).toBe(404);
  });

  it("answers 400 for a body that is not sent as YAML", async () => {
    const response = await invoke(importRoute.POST, "/api/v1/personas/import", { body: "name: x\npermission_mode: read-only\n" });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({ code: "bad_request", message: 'send the personas as YAML with Content-Type text/yaml or application/yaml (got "application/json")' });
  });

  it("answers 413 for a document over 256 KiB", async () => {
    const response = await importYaml(`# ${"x".repeat(256 * 1024)}\nname: big\npermission_mode: read-only\n`);
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toEqual({ code: "args_too_large", message: "the YAML is larger than 262144 bytes" });
    expect((await getPersona("big")).status).toBe(404);
  });

  it("refuses an import by a viewer (403)", async () => {
    const response = await importYaml("name: by-viewer\npermission_mode: read-only\n", viewer.headers);
    expect(response.status).toBe(403);
    expect(await errorOf(response)).toEqual({ code: "forbidden", message: `this needs the admin role; ${viewer.email} is a viewer` });
    expect((await getPersona("by-viewer")).status).toBe(404);
  });
});

describe("GET /api/v1/skills?persona=", () => {
  async function skillNames(query: string): Promise<string[]> {
    const response = await invoke(skillsRoute.GET, `/api/v1/skills${query}`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { skills: Skill[] }).skills.map((skill) => skill.name);
  }

  it("lists only the skills the persona's allow and deny lists let it call", async () => {
    expect(await skillNames("")).toEqual(["log_tail", "disk_usage", "kill_process", "disk_cleaner"]);
    expect(await skillNames("?persona=default")).toEqual(["log_tail", "disk_usage", "kill_process", "disk_cleaner"]);
    await create({ name: "filter-ops", permission_mode: "read-only", skills: { allow: ["category:ops", "disk_*"], deny: ["kill_process"] } });
    expect(await skillNames("?persona=filter-ops")).toEqual(["disk_usage", "disk_cleaner"]);
    expect(await skillNames("?persona=filter-ops&category=system")).toEqual(["disk_cleaner"]);
    expect(await skillNames("?persona=filter-ops&q=usage")).toEqual(["disk_usage"]);
  });

  it("lists nothing for a persona with an empty allow list", async () => {
    await create({ name: "filter-none", permission_mode: "dual-sign-required" });
    expect(await skillNames("?persona=filter-none")).toEqual([]);
  });

  it("answers 400 for an unknown persona", async () => {
    const response = await invoke(skillsRoute.GET, "/api/v1/skills?persona=nobody");
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({ code: "bad_request", message: 'unknown persona "nobody"' });
  });
});
