import { describe, expect, it } from "vitest";
import { defineStoredJson, jsonResponse, pagedList, stringifyJson, withFields } from "./stored-json";

function storedCall(args: string, result: string | null) {
  const call = { id: "c1", args: {}, result: null as unknown, status: "succeeded" };
  defineStoredJson(call, "args", args, {});
  defineStoredJson(call, "result", result, null);
  return call;
}

describe("stored JSON", () => {
  it("writes the stored text unparsed, and the answer means what JSON.stringify of the parsed values means", () => {
    const call = storedCall('{"b":[1,{"c":"d"}],"a":"é\\u2028"}', '{"ok":true}');
    const text = stringifyJson({ call, calls: [call, call] });
    expect(text).toBe('{"call":{"id":"c1","args":{"b":[1,{"c":"d"}],"a":"é\\u2028"},"result":{"ok":true},"status":"succeeded"},"calls":[' + '{"id":"c1","args":{"b":[1,{"c":"d"}],"a":"é\\u2028"},"result":{"ok":true},"status":"succeeded"},'.repeat(2).slice(0, -1) + "]}");
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify({ call: { id: "c1", args: { b: [1, { c: "d" }], a: "é\u2028" }, result: { ok: true }, status: "succeeded" }, calls: [1, 2].map(() => ({ id: "c1", args: { b: [1, { c: "d" }], a: "é\u2028" }, result: { ok: true }, status: "succeeded" })) })));
  });

  it("writes what JSON.stringify writes, stored texts or not: toJSON, left-out values, holes, key order, getters", () => {
    class Stamp {
      constructor(readonly at: number) {}
      toJSON(key: string) {
        return { key, at: new Date(this.at) };
      }
    }
    const sparse: unknown[] = [1];
    sparse[3] = "x";
    const getter = Object.defineProperty({ plain: 1 }, "computed", { enumerable: true, get: () => ({ deep: [undefined, () => 1] }) });
    const shapes = (call: object): unknown[] => [
      { call, when: new Date(0), stamp: new Stamp(5), list: [new Stamp(6), undefined, Symbol("s"), () => 1, NaN, -0, Infinity] },
      [call, sparse, { 2: "two", b: "bee", 1: "one", a: call }, new Number(4), new String("s"), new Boolean(false)],
      { nested: { deeper: [{ call }, { none: undefined, fn() {} }] }, getter, empty: {}, emptyList: [] },
      { toJSON: () => ({ call }) },
      "top",
      null,
      [undefined],
    ];
    for (const value of shapes(storedCall('{"b":[1,{"c":"d"}],"a":"é"}', '{"ok":true}'))) {
      // The stored texts are compact JSON, so JSON.stringify (which reads and parses them) is the oracle.
      expect(stringifyJson(value)).toBe(JSON.stringify(value));
    }
    for (const value of shapes({ id: "plain" })) expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it("refuses a cycle on the way to a stored text as JSON.stringify does", () => {
    const holder: Record<string, unknown> = { call: storedCall('{"x":1}', null) };
    holder.self = holder;
    expect(() => stringifyJson(holder)).toThrow(TypeError);
    const plain: Record<string, unknown> = {};
    plain.self = plain;
    expect(() => stringifyJson({ plain })).toThrow(TypeError);
  });

  it("cannot be fooled by user strings that look like its markers", () => {
    // Whatever a string holds, JSON.stringify escapes its NUL and doubles its backslashes, so no
    // serialised string can end up replaced by stored text.
    const lookalikes = ["\u0000abc:0\u0000", "\\u0000abc:0\\u0000", '"\\u0000', `\u0000${"0".repeat(12)}:0\u0000`];
    for (const lookalike of lookalikes) {
      const call = storedCall('{"x":1}', null);
      const body = { note: lookalike, call, tail: [lookalike] };
      expect(JSON.parse(stringifyJson(body))).toEqual({ note: lookalike, call: { id: "c1", args: { x: 1 }, result: null, status: "succeeded" }, tail: [lookalike] });
    }
  });

  it("parses a stored property when code reads it, once; a write replaces it and its stored text", () => {
    const call = storedCall('{"n":1}', '{"r":2}');
    expect(call.args).toEqual({ n: 1 });
    expect(call.args).toBe(call.args);
    call.result = { replaced: true };
    expect(stringifyJson(call)).toBe('{"id":"c1","args":{"n":1},"result":{"replaced":true},"status":"succeeded"}');
  });

  it("keeps stored properties through withFields (a spread would parse them), extra fields over them", () => {
    const call = storedCall('{"n":1}', '{"r":2}');
    const copy = withFields(call, { events: [], result: "over" });
    expect(stringifyJson(copy)).toBe('{"id":"c1","args":{"n":1},"result":"over","status":"succeeded","events":[]}');
    expect(stringifyJson(call)).toBe('{"id":"c1","args":{"n":1},"result":{"r":2},"status":"succeeded"}');
  });

  it("streams a text kept in parts one part per read, the answer the same JSON", async () => {
    const parts = ['{"s":"', "x".repeat(10), '","n":1}'];
    const reads: number[] = [];
    const call = { id: "c1", args: {} as unknown, status: "queued" };
    defineStoredJson(call, "args", { whole: () => parts.join(""), part: (index: number) => (reads.push(index), parts[index] ?? null) }, {});
    const response = jsonResponse({ call, calls: [] }, { status: 200 });
    const reader = response.body!.getReader();
    const chunks: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(new TextDecoder().decode(value));
    }
    expect(chunks).toEqual(['{"call":{"id":"c1","args":', ...parts, ',"status":"queued"},"calls":[]}']);
    expect(reads).toEqual([0, 1, 2, 3]);
    expect(JSON.parse(chunks.join(""))).toEqual({ call: { id: "c1", args: { s: "x".repeat(10), n: 1 }, status: "queued" }, calls: [] });
    expect(stringifyJson({ call })).toBe(chunks.slice(0, -1).join("") + ',"status":"queued"}}');
  });

  it("answers JSON with the stored text and the status asked for", async () => {
    const response = jsonResponse({ call: storedCall("{}", null) }, { status: 202 });
    expect(response.status).toBe(202);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe('{"call":{"id":"c1","args":{},"result":null,"status":"succeeded"}}');
  });

  it("writes a paged list a bounded piece per read, reading the next page only when the reader gets there", async () => {
    const pages = [[1, 2], [3], []];
    const asked: number[] = [];
    const list = pagedList<number>(pages[0]!, async (last) => (asked.push(last), pages[asked.length]!));
    const response = jsonResponse({ call: { id: "c1", events: list } });
    expect(asked).toEqual([]);
    expect(await response.text()).toBe('{"call":{"id":"c1","events":[1,2,3]}}');
    expect(asked).toEqual([2, 3]);
    expect(await jsonResponse({ events: pagedList<number>([], async () => [9]) }).text()).toBe('{"events":[]}');
    expect(() => stringifyJson({ events: pagedList([1], async () => []) })).toThrow("a paged list is written only by jsonResponse");
  });

  it("cuts long texts into pieces of at most 256 Ki code units, never inside a surrogate pair", async () => {
    // An astral character (two UTF-16 code units) straddles each 256 Ki boundary of the stored text.
    const unit = "x".repeat(256 * 1024 - 7) + "\u{1F600}";
    const result = JSON.stringify({ s: unit.repeat(3) });
    const call = storedCall("{}", result);
    const lines = Array.from({ length: 3000 }, (_, index) => ({ seq: index + 1, line: "é".repeat(200) }));
    const response = jsonResponse({ call: withFields(call, { events: pagedList(lines.slice(0, 1000), async (last) => lines.slice(last.seq, last.seq + 1000)) }) });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const chunks: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(decoder.decode(value));
    }
    expect(chunks.length).toBeGreaterThan(6);
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(256 * 1024 + 300);
    expect(chunks.join("")).not.toContain("\uFFFD");
    expect(JSON.parse(chunks.join(""))).toEqual({ call: { id: "c1", args: {}, result: { s: unit.repeat(3) }, status: "succeeded", events: lines } });
  });
});
