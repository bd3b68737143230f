import { describe, expect, it } from "vitest";
import { compileSchema, COMPILES_PER_INSTANCE, createAjv, dialectOf, formatAjvErrors, SchemaError, sharedAjv, validateArgs } from "./ajv";

const schema = {
  type: "object",
  required: ["email", "mode"],
  additionalProperties: false,
  properties: {
    email: { type: "string", format: "email" },
    homepage: { type: "string", format: "uri" },
    at: { type: "string", format: "date-time" },
    host: { type: "string", format: "ipv4" },
    mode: { type: "string", enum: ["fast", "safe"] },
    tag: { type: "string", pattern: "^[a-z]+-[0-9]+$" },
    count: { type: "integer", minimum: 1, maximum: 10 },
  },
};

const good = { email: "ops@console.local", homepage: "https://example.org/x", at: "2024-05-01T10:20:30Z", host: "10.0.0.1", mode: "fast", tag: "web-1", count: 3 };

describe("validateArgs (DESIGN.md wire protocol: args validated before spawning)", () => {
  it("accepts valid args", () => {
    expect(validateArgs(schema, good)).toEqual({ ok: true });
  });

  it.each([
    ["email", "not-an-email", "email"],
    ["homepage", "not a uri", "uri"],
    ["at", "2024-13-01T10:20:30Z", "date-time"],
    ["at", "2024-05-01", "date-time"],
    ["host", "10.0.0.256", "ipv4"],
    ["host", "::1", "ipv4"],
  ])("checks the %s format (%j is not a %s)", (field, value, format) => {
    expect(validateArgs(schema, { ...good, [field]: value })).toEqual({
      ok: false,
      errors: [
        {
          instancePath: `/${field}`,
          schemaPath: `#/properties/${field}/format`,
          keyword: "format",
          params: { format },
          message: `must match format "${format}"`,
        },
      ],
    });
  });

  it("reports every error at once: required, enum, pattern, range, extra property", () => {
    const result = validateArgs(schema, { mode: "turbo", tag: "Web_1", count: 11, extra: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(formatAjvErrors(result.errors)).toBe(
      "must have required property 'email'; must NOT have additional properties: extra; " +
        "/mode must be equal to one of the allowed values: fast, safe; " +
        '/tag must match pattern "^[a-z]+-[0-9]+$"; /count must be <= 10',
    );
    expect(result.errors.map((error) => [error.keyword, error.instancePath, error.params])).toEqual([
      ["required", "", { missingProperty: "email" }],
      ["additionalProperties", "", { additionalProperty: "extra" }],
      ["enum", "/mode", { allowedValues: ["fast", "safe"] }],
      ["pattern", "/tag", { pattern: "^[a-z]+-[0-9]+$" }],
      ["maximum", "/count", { comparison: "<=", limit: 10 }],
    ]);
  });

  it("refuses args that are not a JSON object, whatever the schema", () => {
    const notObject = { ok: false, errors: [{ instancePath: "", schemaPath: "#/type", keyword: "type", params: { type: "object" }, message: "must be object" }] };
    for (const args of [null, [], "x", 3, undefined]) expect(validateArgs({}, args)).toEqual(notObject);
  });

  it("does not fill in defaults (the child gets exactly the args that were sent)", () => {
    const args = { a: 1 };
    expect(validateArgs({ type: "object", properties: { b: { type: "boolean", default: true } } }, args)).toEqual({ ok: true });
    expect(args).toEqual({ a: 1 });
  });

  it("returns a copy of the errors that a later validation does not overwrite", () => {
    const first = validateArgs(schema, {});
    validateArgs(schema, good);
    expect(first.ok === false && first.errors.length).toBe(2);
  });
});

describe("compileSchema", () => {
  it("compiles each schema once: by object, and by text across objects (a reload re-reads every manifest)", () => {
    const s = { type: "object", properties: { cached: { type: "string" } } };
    expect(compileSchema(s)).toBe(compileSchema(s));
    expect(compileSchema(structuredClone(s))).toBe(compileSchema(s));
    expect(compileSchema({ type: "object", properties: { cached: { type: "integer" } } })).not.toBe(compileSchema(s));
    expect(compileSchema({ $schema: "https://json-schema.org/draft/2020-12/schema", ...s })).not.toBe(compileSchema(s));
  });

  it("lets several schemas (or one schema across reloads) share an $id without colliding or resolving into each other", () => {
    const a = { $id: "https://skills.local/args", type: "object", properties: { n: { $ref: "#/definitions/n" } }, definitions: { n: { $id: "https://skills.local/n", type: "integer" } } };
    const b = { $id: "https://skills.local/args", type: "object", properties: { n: { $ref: "https://skills.local/n" } } };
    expect(validateArgs(a, { n: "x" }).ok).toBe(false);
    expect(() => compileSchema(b)).toThrow(new SchemaError("can't resolve reference https://skills.local/n from id https://skills.local/args"));
    expect(validateArgs(structuredClone(a), { n: 2 })).toEqual({ ok: true });
  });

  it("throws SchemaError for an invalid schema and names an unsupported $schema", () => {
    expect(() => compileSchema({ type: "strng" })).toThrow(SchemaError);
    expect(() => dialectOf({ $schema: 7 })).toThrow('unsupported $schema 7 (use draft-07, 2019-09 or 2020-12)');
    expect(dialectOf({ $schema: "http://json-schema.org/draft-07/schema#" })).toBe("draft-07");
    expect(dialectOf({ $schema: "https://json-schema.org/draft/2019-09/schema" })).toBe("2019-09");
  });

  it("validates 2020-12 keywords with the 2020-12 dialect", () => {
    const tuple = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { p: { type: "array", prefixItems: [{ type: "integer" }], items: false } } };
    expect(validateArgs(tuple, { p: [1] })).toEqual({ ok: true });
    expect(validateArgs(tuple, { p: [1, 2] }).ok).toBe(false);
  });

  it("shares one instance per dialect and configures new ones the same way", () => {
    expect(sharedAjv()).toBe(sharedAjv("draft-07"));
    expect(sharedAjv("2020-12")).not.toBe(sharedAjv());
    const ajv = createAjv();
    expect(ajv.opts.allErrors).toBe(true);
    expect(ajv.validate({ type: "string", format: "ipv4" }, "1.2.3.4")).toBe(true);
  });
});

describe("shared Ajv instances (memory across reloads)", () => {
  it("retires an instance after COMPILES_PER_INSTANCE compiles, so what ajv keeps stays bounded", () => {
    const first = sharedAjv();
    const scopeSize = (ajv: ReturnType<typeof sharedAjv>) =>
      ((ajv as unknown as { scope: { _values: Record<string, Set<unknown>> } }).scope._values.validate?.size ?? 0);
    const compiles = COMPILES_PER_INSTANCE * 2 + 10;
    const validators = [];
    for (let index = 0; index < compiles; index++) {
      validators.push(compileSchema({ type: "object", properties: { [`field_${index}`]: { type: "integer" } } }).validate);
    }
    const current = sharedAjv();
    expect(current).not.toBe(first);
    expect(scopeSize(first)).toBeLessThanOrEqual(COMPILES_PER_INSTANCE + 5);
    expect(scopeSize(current)).toBeLessThanOrEqual(COMPILES_PER_INSTANCE + 5);
    // Validators compiled by a retired instance keep working.
    expect(validators[0]!({ field_0: 1 })).toBe(true);
    expect(validators[0]!({ field_0: "x" })).toBe(false);
  });
});

describe("compileSchema's cache key: the schema without its annotations", () => {
  it("shares one validator between schemas that differ only in titles, descriptions, defaults and examples, and never between schemas that accept different args", () => {
    const shape = (note: string, port = 22) => ({
      type: "object",
      title: `Probe ${note}`,
      properties: { host: { type: "string", description: `Host (${note})`, examples: [note] }, port: { type: "integer", default: port, $comment: note } },
      required: ["host"],
    });
    const first = compileSchema(shape("a"));
    expect(compileSchema(shape("b", 80)).validate).toBe(first.validate);
    // A property named like an annotation is a property: its schema counts.
    const named = (type: string) => ({ type: "object", properties: { description: { type }, title: { type: "string" } }, required: ["description"] });
    expect(compileSchema(named("string")).validate).not.toBe(compileSchema(named("integer")).validate);
    expect(compileSchema(named("integer")).validate({ description: "text", title: "t" })).toBe(false);
    expect(compileSchema(named("string")).validate({ description: "text", title: "t" })).toBe(true);
    // Values of enum and const are data, kept whole.
    const choice = (value: string) => ({ type: "object", properties: { mode: { enum: [value, { description: value }] } } });
    expect(compileSchema(choice("fast")).validate).not.toBe(compileSchema(choice("slow")).validate);
    expect(compileSchema(choice("slow")).validate({ mode: "fast" })).toBe(false);
    // Beside a $ref the annotations stay in the key (ajv may warn about a $ref's siblings).
    const referring = (note: string) => ({ definitions: { name: { type: "string" } }, $ref: "#/definitions/name", description: note });
    expect(compileSchema(referring("x")).validate).not.toBe(compileSchema(referring("y")).validate);
  });
});
