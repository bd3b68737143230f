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

describe("JsonShapeScanner capture", () => {
  function captured(text: string, path: string[], chunk = Infinity): string | null {
    const scanner = new JsonShapeScanner({ maxNodes: 1e9, maxDepth: 1000, capture: path });
    const bytes = Buffer.from(text, "utf8");
    for (let at = 0; at < bytes.length; at += chunk === Infinity ? bytes.length : chunk) scanner.push(bytes.subarray(at, chunk === Infinity ? bytes.length : at + chunk));
    const span = scanner.capturedSpan;
    return span === null ? null : bytes.subarray(span.start, span.end).toString("utf8");
  }

  const CASES: Array<[string, string[], string | null]> = [
    ['{"args": {"a": [1, {"b": "}"}]}, "wait": true}', ["args"], '{"a": [1, {"b": "}"}]}'],
    ['{"wait":false,"args":{}}', ["args"], "{}"],
    ['{"args": 12.5e3 }', ["args"], "12.5e3 "],
    ['{"args":"text with \\" and }"}', ["args"], '"text with \\" and }"'],
    ['{"\\u0061rgs": [1,2]}', ["args"], "[1,2]"],
    ['{"x": {"args": 1}, "y": [{"args": 2}]}', ["args"], null],
    ['[{"args": 1}]', ["args"], null],
    ['{"jsonrpc":"2.0","params":{"name":"disk","arguments":{"path":"/"}},"id":1}', ["params", "arguments"], '{"path":"/"}'],
    ['{"arguments":{"no":1},"params":{"x":{"arguments":2}}}', ["params", "arguments"], null],
    ['{"é😀": 1, "args": "é😀"}', ["args"], '"é😀"'],
  ];

  it.each(CASES)("finds the value of %s at %j whatever the chunk boundaries", (text, path, expected) => {
    for (const chunk of [Infinity, 1, 2, 5]) expect(captured(text, path, chunk)).toBe(expected);
  });

  it("refuses the captured path twice, escaped or not (JSON.parse would silently keep the last)", () => {
    expect(() => captured('{"args": {}, "args": {"evil": 1}}', ["args"])).toThrow(new JsonShapeError("duplicate", 0, "args"));
    expect(() => captured('{"args": {}, "\\u0061rgs": {}}', ["args"])).toThrow("the JSON document has the key args twice");
    expect(() => captured('{"params": {"arguments": 1, "arguments": 2}}', ["params", "arguments"])).toThrow("the JSON document has the key params.arguments twice");
    // An ancestor twice: JSON.parse would keep the second "params", whose arguments are not the captured ones.
    expect(() => captured('{"params": {"name": "a", "arguments": {"x": 1}}, "params": {"name": "b"}}', ["params", "arguments"])).toThrow("the JSON document has the key params twice");
    expect(() => captured('{"params": {"arguments": {}}, "\u0070arams": 1}', ["params", "arguments"])).toThrow("the JSON document has the key params twice");
    // The same keys elsewhere are not the path.
    expect(captured('{"x": {"params": 1, "params": 2}, "params": {"arguments": [1]}}', ["params", "arguments"])).toBe("[1]");
  });
});
