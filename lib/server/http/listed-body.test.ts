import { describe, expect, it } from "vitest";
import type { JsonSchema } from "@/lib/types/skill";
import { parseListedBody } from "./request-body";

const ITEM = { type: "object", additionalProperties: false, required: ["n"], properties: { n: { type: "integer" } } } as const;
const SCHEMA = { type: "object", additionalProperties: false, required: ["name", "items"], properties: { name: { type: "string" }, items: { type: "array", items: ITEM } } } as const satisfies JsonSchema;
const LIST = { key: "items", schema: { type: "array", items: ITEM } as const satisfies JsonSchema, maxItems: 5000 };

function post(text: string): Request {
  return new Request("http://console.test/x", { method: "POST", body: text, headers: { "content-type": "application/json" } });
}

const parse = (text: string) => parseListedBody<{ name: string; items: Array<{ n: number }> }>(post(text), SCHEMA, LIST, "a list", 1 << 24, 1 << 20);

/** What the body means to JSON.parse, or its refusal. */
function reference(text: string): unknown {
  try {
    return { ok: JSON.parse(text) as unknown };
  } catch {
    return "invalid";
  }
}

describe("parseListedBody", () => {
  // Lists of more than one slice (2,000 items), with separators inside strings, nested commas and odd whitespace.
  const many = Array.from({ length: 4321 }, (_, i) => ({ n: i }));
  it.each([
    ['{"name":"a","items":[]}', { name: "a", items: [] }],
    ['{"name":"a","items":[ \n ]}', { name: "a", items: [] }],
    ['{ "items" : [ {"n":1} , {"n" : 2} ] , "name":"a,]}" }', { name: "a,]}", items: [{ n: 1 }, { n: 2 }] }],
    [JSON.stringify({ name: "many", items: many }), { name: "many", items: many }],
    [JSON.stringify({ items: many, name: "last" }, null, 2), { name: "last", items: many }],
  ])("reads %# exactly as JSON.parse does", async (text, expected) => {
    expect(await parse(text)).toEqual(expected);
  });

  it.each([
    '{"name":"a","items":[{"n":1},]}',
    '{"name":"a","items":[,{"n":1}]}',
    '{"name":"a","items":[{"n":1},,{"n":2}]}',
    '{"name":"a","items":[{"n":1} {"n":2}]}',
    '{"name":"a","items":[{"n":1}] 7}',
    '{"name":"a","items":[{"n":1}]]}',
    '{"name":"a","items":[{"n":1}',
    `{"name":"a","items":[${Array(2000).fill('{"n":1}').join(",")},]}`,
    `{"name":"a","items":[${Array(2000).fill('{"n":1}').join(",")},,{"n":1}]}`,
  ])("refuses %s, which JSON.parse refuses, as invalid JSON", async (text) => {
    expect(reference(text)).toBe("invalid");
    await expect(parse(text)).rejects.toMatchObject({ code: "bad_request", message: expect.stringMatching(/^request body is not valid JSON: /) });
  });

  it("names a bad item by its index in the whole list, past the first slice", async () => {
    const items = Array.from({ length: 4500 }, (_, i) => (i === 4321 ? { n: "x" } : { n: i }));
    await expect(parse(JSON.stringify({ name: "a", items }))).rejects.toMatchObject({ code: "bad_request", message: "a list: /items/4321/n must be integer" });
  });

  it("cuts slices by bytes too: long items are parsed a few at a time, and a bad one is still named by its index", async () => {
    const LONG = { ...ITEM, properties: { ...ITEM.properties, pad: { type: "string" } } } as const;
    const schema = { ...SCHEMA, properties: { ...SCHEMA.properties, items: { type: "array", items: LONG } } } as const satisfies JsonSchema;
    const list = { ...LIST, schema: { type: "array", items: LONG } as const satisfies JsonSchema };
    const items = Array.from({ length: 300 }, (_, i) => ({ n: i, pad: "p".repeat(10_000) }));
    const read = (body: unknown) => parseListedBody(post(JSON.stringify(body)), schema, list, "a list", 1 << 24, 1 << 20);
    expect(await read({ name: "long", items })).toEqual({ name: "long", items });
    const bad = items.map((item, i) => (i === 257 ? { ...item, n: "x" } : item));
    await expect(read({ name: "long", items: bad })).rejects.toMatchObject({ code: "bad_request", message: "a list: /items/257/n must be integer" });
  });

  it("refuses a list longer than maxItems before parsing any item", async () => {
    // Items that are not JSON at all: the length is refused first.
    const text = `{"name":"a","items":[${Array(5001).fill("nonsense").join(",")}]}`;
    await expect(parse(text)).rejects.toMatchObject({ code: "bad_request", message: "a list: /items must NOT have more than 5000 items" });
  });

  it("checks the rest of the body against the schema, and a list that is not an array", async () => {
    await expect(parse('{"name":7,"items":[]}')).rejects.toMatchObject({ code: "bad_request", message: "a list: /name must be string" });
    await expect(parse('{"name":"a","items":"x"}')).rejects.toMatchObject({ code: "bad_request", message: "a list: /items must be array" });
    await expect(parse('{"name":"a","items":{"n":1}}')).rejects.toMatchObject({ code: "bad_request", message: "a list: /items must be array" });
    await expect(parse('{"name":"a","items":[],"items":[]}')).rejects.toMatchObject({ code: "bad_request", message: "request body has the field items twice" });
  });
});
