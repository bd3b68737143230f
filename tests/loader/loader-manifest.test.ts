import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addSkill, load, makeTempDir, writeManifest, writeScript } from "./loader-fixtures";

/** Writes `<root>/m/skill.json` (raw text or object), an executable run.sh beside it, loads, and returns the result. */
async function loadManifest(manifest: Record<string, unknown> | string, opts: { defaultTimeoutSeconds?: number } = {}) {
  const root = makeTempDir();
  const dir = path.join(root, "m");
  writeScript(path.join(dir, "run.sh"));
  const file = writeManifest(dir, manifest);
  const result = await load([root], opts);
  return { root, file, ...result };
}

/** The `<message>` of the single `parse <path>: <message>` line a manifest produced. */
async function parseMessage(manifest: Record<string, unknown> | string): Promise<string> {
  const { file, report } = await loadManifest(manifest);
  expect(report.log).toHaveLength(1);
  const prefix = `skill loader: parse ${file}: `;
  expect(report.log[0]?.startsWith(prefix)).toBe(true);
  expect(report.failed[0]?.reason).toBe(`parse: ${report.log[0]!.slice(prefix.length)}`);
  return report.log[0]!.slice(prefix.length);
}

const valid = { name: "ok", description: "does things", entry: "run.sh" };

describe("subprocess loader: parsing skill.json (seed 000 \"Esquema del manifiesto\")", () => {
  it("logs invalid JSON with JSON.parse's message", async () => {
    expect(await parseMessage("{,}")).toBe("Expected property name or '}' in JSON at position 1");
    expect(await parseMessage('{"name": "a",}')).toBe("Expected double-quoted property name in JSON at position 13");
    expect(await parseMessage("")).toBe("Unexpected end of JSON input");
  });

  it("reads a manifest of exactly the size limit and refuses one a byte larger", async () => {
    const base = JSON.stringify({ ...valid, padding: "" });
    const atLimit = JSON.stringify({ ...valid, padding: "x".repeat(1024 * 1024 - base.length) });
    expect(Buffer.byteLength(atLimit)).toBe(1024 * 1024);
    expect((await loadManifest(atLimit)).report.count).toBe(1);
    expect(await parseMessage(`${atLimit} `)).toBe("larger than 1048576 bytes");
  });

  it("tolerates a UTF-8 byte-order mark", async () => {
    const { report } = await loadManifest(`\uFEFF${JSON.stringify(valid)}`);
    expect(report.count).toBe(1);
  });

  it("requires a JSON object with name, description and entry", async () => {
    expect(await parseMessage("[]")).toBe("must be object");
    expect(await parseMessage("null")).toBe("must be object");
    expect(await parseMessage({})).toBe(
      "must have required property 'name'; must have required property 'description'; must have required property 'entry'",
    );
    expect(await parseMessage({ name: "x", entry: "run.sh" })).toBe("must have required property 'description'");
  });

  it.each([
    [{ name: "Disk-Cleaner" }, '/name must match pattern "^[a-z0-9_]+$"'],
    [{ name: "" }, '/name must match pattern "^[a-z0-9_]+$"'],
    [{ name: "a".repeat(65) }, "/name must NOT have more than 64 characters"],
    [{ name: 5 }, "/name must be string"],
    [{ description: "" }, "/description must NOT have fewer than 1 characters; /description must not be blank"],
    [{ description: "   " }, "/description must not be blank"],
    [{ description: ["a"] }, "/description must be string"],
    [{ entry: "" }, "/entry must NOT have fewer than 1 characters; /entry must not be blank"],
    [{ entry: 1 }, "/entry must be string"],
    [{ schema: "object" }, "/schema must be object"],
    [{ schema: [] }, "/schema must be object"],
    [{ env_allow: "PATH" }, "/env_allow must be array"],
    [{ env_allow: ["PATH", "1BAD", "with space"] }, '/env_allow/1 must match pattern "^[A-Za-z_][A-Za-z0-9_]*$"; /env_allow/2 must match pattern "^[A-Za-z_][A-Za-z0-9_]*$"'],
    [{ env_allow: [3] }, "/env_allow/0 must be string"],
    [{ timeout_seconds: 1.5 }, "/timeout_seconds must be integer"],
    [{ timeout_seconds: "30" }, "/timeout_seconds must be integer"],
    [{ timeout_seconds: -1 }, "/timeout_seconds must be >= 0"],
    [{ timeout_seconds: 86_401 }, "/timeout_seconds must be <= 86400"],
    [{ class: "unsafe" }, "/class must be equal to one of the allowed values: safe, mutating, dangerous"],
    [{ class: "read" }, "/class must be equal to one of the allowed values: safe, mutating, dangerous"],
    [{ category: "" }, "/category must NOT have fewer than 1 characters; /category must not be blank"],
    [{ category: 7 }, "/category must be string"],
    [{ name: "Bad", class: "x", timeout_seconds: -2 }, '/name must match pattern "^[a-z0-9_]+$"; /timeout_seconds must be >= 0; /class must be equal to one of the allowed values: safe, mutating, dangerous'],
  ])("rejects %j with %s", async (fields, message) => {
    expect(await parseMessage({ ...valid, ...fields })).toBe(message);
  });

  it.each([
    [{ type: "strng" }, "/schema is not a valid JSON Schema: /type must be equal to one of the allowed values: array, boolean, integer, null, number, object, string; /type must be array"],
    [{ properties: 5 }, "/schema is not a valid JSON Schema: /properties must be object"],
    [{ type: "object", required: "path" }, "/schema is not a valid JSON Schema: /required must be array"],
    [{ type: "object", properties: { a: { type: "string", pattern: "(" } } }, "/schema is not a valid JSON Schema: Invalid regular expression: /(/u: Unterminated group"],
    [{ type: "object", properties: { a: { $ref: "#/definitions/missing" } } }, "/schema is not a valid JSON Schema: can't resolve reference #/definitions/missing from id #"],
    [{ $schema: "http://json-schema.org/draft-04/schema#", type: "object" }, '/schema is not a valid JSON Schema: unsupported $schema "http://json-schema.org/draft-04/schema#" (use draft-07, 2019-09 or 2020-12)'],
    [{ $async: true, type: "object" }, "/schema is not a valid JSON Schema: async schemas ($async) are not supported"],
    [{ type: "array" }, '/schema/type must be "object" (args are always a JSON object), not "array"'],
    [{ type: ["object", "null"] }, '/schema/type must be "object" (args are always a JSON object), not ["object","null"]'],
  ])("rejects the args schema %j", async (schema, message) => {
    expect(await parseMessage({ ...valid, schema })).toBe(message);
  });

  it("names the skill in a failed entry when the manifest had a string name", async () => {
    const { report, root, file } = await loadManifest({ ...valid, name: "Bad-Name" });
    expect(report.failed).toEqual([{ path: file, root, name: "Bad-Name", reason: 'parse: /name must match pattern "^[a-z0-9_]+$"', warnings: [] }]);
  });

  it("accepts editor keywords, x-* extensions, $ref/definitions and a 2020-12 schema", async () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      "x-ui-order": ["path"],
      properties: {
        path: { type: "string", readOnly: false, deprecated: false, examples: ["/tmp"], "x-widget": "path", $ref: "#/$defs/nonEmpty" },
      },
      $defs: { nonEmpty: { minLength: 1 } },
    };
    const { report, skills } = await loadManifest({ ...valid, schema });
    expect(report.failed).toEqual([]);
    expect(skills[0]?.schema).toEqual(schema);
    expect(skills[0]?.warnings).toEqual([]);
  });

  it("keeps a manifest with unknown top-level fields or an unknown format, reporting each as a warning", async () => {
    const schema = { type: "object", properties: { v: { type: "string", format: "semver" } } };
    const { report, skills } = await loadManifest({ ...valid, version: "1.2.0", author: "ops", schema });
    expect(report.count).toBe(1);
    expect(skills[0]?.warnings).toEqual([
      'unknown field "version" in skill.json ignored',
      'unknown field "author" in skill.json ignored',
      'schema: unknown format "semver" ignored in schema at path "#/properties/v"',
    ]);
  });

  it("builds the Skill with the seed's defaults", async () => {
    const { skills, root, file } = await loadManifest(valid, { defaultTimeoutSeconds: 45 });
    expect(skills).toEqual([
      {
        name: "ok",
        kind: "subprocess",
        description: "does things",
        category: "external",
        class: "safe",
        schema: { type: "object", properties: {} },
        timeoutSeconds: 45,
        envAllow: [],
        source: { root, path: file },
        available: true,
        unavailableReason: null,
        warnings: [],
        sandbox: { read: [], write: [], network: true, devices: [], hostPids: false },
        secretsNeeded: [],
        secretsGiven: [],
        entryPath: path.join(root, "m", "run.sh"),
        workingDirectory: path.join(root, "m"),
        skillSource: { file, sha256: createHash("sha256").update(fs.readFileSync(file)).digest("hex") },
      },
    ]);
  });

  it("uses the default timeout for timeout_seconds 0 and keeps the manifest's values otherwise", async () => {
    const zero = await loadManifest({ ...valid, timeout_seconds: 0 }, { defaultTimeoutSeconds: 30 });
    expect(zero.skills[0]?.timeoutSeconds).toBe(30);
    const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    const full = await loadManifest({
      ...valid,
      timeout_seconds: 60,
      class: "mutating",
      category: "ops",
      env_allow: ["PATH", "HOME", "PATH"],
      schema,
    });
    expect(full.skills[0]).toMatchObject({ timeoutSeconds: 60, class: "mutating", category: "ops", envAllow: ["PATH", "HOME"], schema });
  });

  it("registers every class", async () => {
    const root = makeTempDir();
    for (const skillClass of ["safe", "mutating", "dangerous"]) addSkill(root, skillClass, { name: skillClass, class: skillClass });
    const { skills } = await load([root]);
    expect(skills.map((skill) => [skill.name, skill.class])).toEqual([
      ["dangerous", "dangerous"],
      ["mutating", "mutating"],
      ["safe", "safe"],
    ]);
  });
});
