import { describe, expect, it } from "vitest";
import { JsonShapeError, JsonShapeScanner } from "./json-shape";

/** Values of a parsed document, counted the reference way: every object, array, string, number and literal; keys are not values. */
function referenceCount(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((sum: number, item) => sum + referenceCount(item), 0);
  if (value !== null && typeof value === "object") return 1 + Object.values(value).reduce((sum: number, item) => sum + referenceCount(item), 0);
  return 1;
}

function scan(text: string, chunk = Infinity, limits = { maxNodes: 1e9, maxDepth: 1000 }): number {
  const scanner = new JsonShapeScanner(limits);
  const bytes = Buffer.from(text, "utf8");
  for (let at = 0; at < bytes.length; at += chunk === Infinity ? bytes.length : chunk) scanner.push(bytes.subarray(at, chunk === Infinity ? bytes.length : at + chunk));
  return scanner.values;
}

const DOCUMENTS = [
  "{}",
  "[]",
  "7",
  '"text"',
  "[1, 2, 3]",
  '{"a": 1, "b": [true, false, null], "c": {}}',
  '[{}, [], {"k": []}, [[]]]',
  '{"quote \\" in key": "and \\\\ in value", "brace { in string": "] , : }"}',
  ' \n\t{ "é😀": [ -1.5e+10 , "\\u2028" ] } ',
  '{"args": {"items": [{"deep": [[[{"x": 0}]]]}]}, "wait": true, "persona": null}',
];

describe("JsonShapeScanner", () => {
  it.each(DOCUMENTS)("counts the values of %s exactly, whatever the chunk boundaries", (text) => {
    const expected = referenceCount(JSON.parse(text));
    expect(scan(text)).toBe(expected);
    for (const chunk of [1, 2, 3, 7]) expect(scan(text, chunk)).toBe(expected);
  });

  it("stops at the first value past maxNodes", () => {
    const text = `[${Array(50).fill("{}").join(",")}]`;
    expect(() => scan(text, Infinity, { maxNodes: 50, maxDepth: 10 })).toThrow(new JsonShapeError("nodes", 50));
    expect(scan(text, Infinity, { maxNodes: 51, maxDepth: 10 })).toBe(51);
  });

  it("stops past maxDepth levels, counting arrays and objects alike", () => {
    expect(() => scan(`${"[".repeat(5)}${"]".repeat(5)}`, Infinity, { maxNodes: 100, maxDepth: 4 })).toThrow("the JSON document nests deeper than 4 levels");
    expect(scan('{"a":[{"b":[]}]}', Infinity, { maxNodes: 100, maxDepth: 4 })).toBe(4);
    expect(() => scan('{"a":[{"b":[{}]}]}', Infinity, { maxNodes: 100, maxDepth: 4 })).toThrow(JsonShapeError);
  });
});
