import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { describeConstraints } from "./constraint-hint";
import { toFormSchema } from "./form-schema";
import { argsValidator } from "./validator";

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
