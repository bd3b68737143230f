import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { describeConstraints } from "./constraint-hint";
import { fixedValueOf, newArrayItem, optionLabel, toFormSchema } from "./form-schema";
import { argsValidator, createArgsValidator } from "./validator";

describe("toFormSchema: union types and string array items", () => {
  it("spells a union of null and two types as an anyOf whose null option is const null (rjsf draws it and sets null)", () => {
    const schema = toFormSchema({
      type: "object",
      properties: {
        id: { type: ["string", "integer", "null"], title: "Id", minLength: 2, minimum: 1 },
        tags: { type: ["string", "array", "null"], title: "Tags", items: { type: "string" } },
      },
    });
    expect(schema).toEqual({
      type: "object",
      properties: {
        id: {
          title: "Id",
          anyOf: [
            { type: "string", title: "string", minLength: 2 },
            { type: "integer", title: "integer", minimum: 1 },
            { const: null, title: "null" },
          ],
        },
        tags: {
          title: "Tags",
          anyOf: [
            { type: "string", title: "string" },
            { type: "array", title: "array", items: { type: "string", default: "" } },
            { const: null, title: "null" },
          ],
        },
      },
    });
    expect(describeConstraints(schema.properties!.id as never)).toBe("string or integer or null");
    expect(describeConstraints(schema.properties!.tags as never)).toBe("string or array or null");
  });

  it("accepts and refuses exactly what the original union does", () => {
    const original: RJSFSchema = { type: "object", properties: { id: { type: ["string", "integer", "null"], minLength: 2 }, tags: { type: ["string", "array", "null"], items: { type: "string" } } } };
    const rewritten = toFormSchema(original);
    const cases: Record<string, unknown>[] = [
      {},
      { id: null },
      { id: "" },
      { id: "ab" },
      { id: 3 },
      { id: 1.5 },
      { id: true },
      { tags: null },
      { tags: "" },
      { tags: [] },
      { tags: ["", "x"] },
      { tags: [null] },
      { tags: 4 },
    ];
    const verdicts = cases.map((args) => [argsValidator.isValid(original, args, original), argsValidator.isValid(rewritten, args, rewritten)]);
    expect(verdicts.map(([before]) => before)).toEqual([true, true, false, true, true, false, false, true, true, true, true, false, false]);
    expect(verdicts.map(([, after]) => after)).toEqual(verdicts.map(([before]) => before));
  });

  it("makes new items of a plain string array start as \"\" (not undefined, sent as null), leaving enums and defaults alone", () => {
    const schema = toFormSchema({
      type: "object",
      properties: {
        words: { type: "array", items: { type: "string" } },
        levels: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        named: { type: "array", items: { type: "string", default: "x" } },
        numbers: { type: "array", items: { type: "number" } },
      },
    });
    expect(schema.properties).toEqual({
      words: { type: "array", items: { type: "string", default: "" } },
      levels: { type: "array", items: { type: "string", enum: ["a", "b"] } },
      named: { type: "array", items: { type: "string", default: "x" } },
      numbers: { type: "array", items: { type: "number" } },
    });
  });
});

describe("toFormSchema: map values", () => {
  it("start new entries as their type's empty value, never rjsf's \"New Value\" text, leaving defaults, consts, refs and choices alone", () => {
    const schema = toFormSchema({
      type: "object",
      properties: {
        labels: { type: "object", additionalProperties: { type: "string" } },
        limits: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
        flags: { type: "object", additionalProperties: { type: ["boolean", "null"] } },
        named: { type: "object", additionalProperties: { type: "string", default: "x" } },
        fixed: { type: "object", additionalProperties: { const: 3 } },
        picked: { type: "object", additionalProperties: { enum: ["a", "b"] } },
        open: { type: "object", additionalProperties: true },
      },
    }) as { properties: Record<string, { additionalProperties: unknown }> };
    expect(Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, property.additionalProperties]))).toEqual({
      labels: { type: "string", default: "" },
      limits: { type: "integer", minimum: 0, default: 0 },
      flags: { type: ["boolean", "null"], default: false },
      named: { type: "string", default: "x" },
      fixed: { const: 3 },
      picked: { enum: ["a", "b"] },
      open: true,
    });
  });
});

describe("toFormSchema: anyOf/oneOf options are labelled", () => {
  it("by title, else const of any JSON type, else a description of the branch", () => {
    const schema = toFormSchema({
      type: "object",
      $defs: {
        titled: { title: "From a definition", type: "object" },
        untitled: { type: "object", properties: { kind: { const: "disk" }, path: { type: "string" } } },
        described: { type: "object", description: "Reads a file from the host.\nMore text." },
        plain: { type: "string", minLength: 2 },
      },
      properties: {
        consts: { oneOf: [{ const: "fast" }, { const: 3 }, { const: true }, { const: null }, { const: { a: 1 } }, { const: [1, 2] }, { enum: ["one"] }, { title: "Named", const: "x" }] },
        branches: {
          anyOf: [
            { $ref: "#/$defs/titled" },
            { $ref: "#/$defs/untitled" },
            { $ref: "#/$defs/described" },
            { $ref: "#/$defs/plain" },
            { type: "object", properties: { host: { type: "string" }, port: { type: "integer" } } },
            { type: "integer", minimum: 1, maximum: 9 },
            { type: "object", required: ["mode"], properties: { other: { const: 1 }, mode: { enum: ["tail"] } } },
            {},
          ],
        },
        same: { oneOf: [{ type: "object" }, { type: "object" }] },
      },
    });
    const titles = (name: string) => ((schema.properties![name] as RJSFSchema).oneOf ?? (schema.properties![name] as RJSFSchema).anyOf)!.map((option) => (option as RJSFSchema).title);
    expect(titles("consts")).toEqual(["fast", "3", "true", "null", '{"a":1}', "[1,2]", "one", "Named"]);
    expect(titles("branches")).toEqual(["From a definition", "kind: disk", "Reads a file from the host.", "plain", "object with host, port", "integer · 1–9", "mode: tail", "any value"]);
    expect(titles("same")).toEqual(["object (option 1)", "object (option 2)"]);
    // A $ref'd option with a title keeps its title from the definition (rjsf reads it there).
    expect(optionLabel({ $ref: "#/$defs/titled" }, schema)).toBe("From a definition");
  });

  it("keeps what the schema accepts", () => {
    const original: RJSFSchema = { type: "object", properties: { v: { oneOf: [{ const: "a" }, { type: "integer" }] } } };
    const rewritten = toFormSchema(original);
    for (const args of [{ v: "a" }, { v: 2 }, { v: "b" }, {}]) expect(argsValidator.isValid(rewritten, args, rewritten)).toBe(argsValidator.isValid(original, args, original));
  });
});

describe("fixedValueOf: a field that allows one value", () => {
  it.each([
    [{ const: "a" }, { value: "a" }],
    [{ const: null }, { value: null }],
    [{ const: { a: [1] } }, { value: { a: [1] } }],
    [{ type: "integer", enum: [7] }, { value: 7 }],
    [{ enum: ["a", "b"] }, undefined],
    [{ type: "string" }, undefined],
  ])("%j → %j", (schema, fixed) => {
    expect(fixedValueOf(schema)).toEqual(fixed);
  });
});

describe("newArrayItem: an added item holds its schema's defaults", () => {
  const root = toFormSchema({
    type: "object",
    $defs: {
      target: {
        type: "object",
        required: ["kind"],
        properties: {
          kind: { const: "host" },
          port: { type: "integer", default: 22 },
          name: { type: "string" },
          tls: { type: "object", properties: { verify: { type: "boolean", default: true }, level: { enum: ["strict"] } } },
          tags: { type: "array", default: ["a"], items: { type: "string" } },
        },
      },
    },
    properties: {
      targets: { type: "array", items: { $ref: "#/$defs/target" } },
      words: { type: "array", items: { type: "string" } },
      counts: { type: "array", items: { type: "integer" } },
      tuple: { type: "array", items: [{ type: "string" }], additionalItems: { type: "object", properties: { n: { type: "number", default: 1.5 } } } },
      picks: { type: "array", items: { type: "string", oneOf: [{ const: "x" }, { const: "y" }] } },
    },
  });
  const item = (name: string) => newArrayItem(argsValidator, root.properties![name] as RJSFSchema, root);
  it("resolves $ref and fills nested defaults and consts", () => {
    expect(item("targets")).toEqual({ kind: "host", port: 22, tls: { verify: true, level: "strict" }, tags: ["a"] });
  });
  it("starts a plain string as \"\", leaves a number and a choice of consts unset, and uses additionalItems after a tuple", () => {
    expect(item("words")).toBe("");
    expect(item("counts")).toBeUndefined();
    expect(item("picks")).toBeUndefined();
    expect(item("tuple")).toEqual({ n: 1.5 });
  });
});

describe("createArgsValidator: errors come from the branch the form shows", () => {
  const schema = toFormSchema({
    type: "object",
    $defs: {
      disk: { type: "object", required: ["kind", "path"], properties: { kind: { const: "disk" }, path: { type: "string", minLength: 1 } } },
      url: { type: "object", required: ["kind", "href"], properties: { kind: { const: "url" }, href: { type: "string", format: "uri" } } },
    },
    properties: {
      source: { oneOf: [{ $ref: "#/$defs/disk" }, { $ref: "#/$defs/url" }] },
      sources: { type: "array", items: { oneOf: [{ $ref: "#/$defs/disk" }, { $ref: "#/$defs/url" }] } },
      byKey: { type: "object", additionalProperties: { anyOf: [{ type: "integer", minimum: 0 }, { type: "string", minLength: 2 }] } },
      flag: { oneOf: [{ type: "boolean" }, { type: "integer" }] },
    },
  });
  const errorsOf = (args: Record<string, unknown>, picks = new Map<string, number>()) =>
    ((createArgsValidator(picks).rawValidation(schema, args).errors ?? []) as { instancePath: string; keyword: string; params: Record<string, unknown> }[]).map((error) => `${error.instancePath} ${error.keyword} ${JSON.stringify(error.params)}`);

  it("names only the chosen branch's fields and never another branch's const", () => {
    expect(errorsOf({ source: { kind: "url" } })).toEqual(['/source required {"missingProperty":"href"}']);
    expect(errorsOf({ source: { kind: "disk", path: "" } })).toEqual(['/source/path minLength {"limit":1}']);
    expect(errorsOf({ sources: [{ kind: "url", href: "nope" }, { kind: "disk" }] })).toEqual(['/sources/0/href format {"format":"uri"}', '/sources/1 required {"missingProperty":"path"}']);
    expect(errorsOf({ byKey: { a: -1, b: "x", c: 3 } })).toEqual(['/byKey/a minimum {"comparison":">=","limit":0}', '/byKey/b minLength {"limit":2}']);
  });

  it("follows the person's pick when the data fits no branch better", () => {
    expect(errorsOf({ source: {} })).toEqual(['/source required {"missingProperty":"kind"}', '/source required {"missingProperty":"path"}']);
    expect(errorsOf({ source: {} }, new Map([["root_source", 1]]))).toEqual(['/source required {"missingProperty":"kind"}', '/source required {"missingProperty":"href"}']);
  });

  it("keeps the union's own error when the data matches two oneOf options, and accepts valid data", () => {
    const both = toFormSchema({ type: "object", properties: { n: { oneOf: [{ type: "integer" }, { type: "number" }] } } });
    const errors = createArgsValidator().rawValidation(both, { n: 2 }).errors as { instancePath: string; keyword: string }[];
    expect(errors.map((error) => `${error.instancePath} ${error.keyword}`)).toEqual(["/n oneOf"]);
    expect(errorsOf({ source: { kind: "disk", path: "/x" }, flag: true })).toEqual([]);
  });
});
