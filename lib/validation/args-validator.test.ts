import { describe, expect, it } from "vitest";
import { checkJsonObjectText, parseJsonOffThread, validateArgsJson, ValidationBusyError } from "./args-validator";

describe("checks off the main thread", () => {
  it("tell a loaded machine from a bad text: a check out of time rejects with ValidationBusyError, never a verdict", async () => {
    const text = JSON.stringify({ big: "x".repeat(2 * 1024 * 1024) });
    // A result dropped for the thread's budget was lost for good: the worker's finish was answered, the call failed.
    await expect(checkJsonObjectText(text, 0)).rejects.toBeInstanceOf(ValidationBusyError);
    expect(await checkJsonObjectText(text)).toBeNull();
    expect(await checkJsonObjectText(`[${"1,".repeat(40_000)}1]`)).toBe("it is not a JSON object");
  });

  it("parse a document's bytes in the thread, capping the named string fields by their UTF-8 size", async () => {
    const body = { result: "é".repeat(600_000), status: "succeeded", note: "é".repeat(10) };
    const parsed = await parseJsonOffThread(Buffer.from(JSON.stringify(body)), { result: 1_000_000, note: 100 });
    expect(parsed).toEqual({ ok: true, value: { result: null, status: "succeeded", note: "é".repeat(10) }, oversized: { result: 1_200_000 } });
    const kept = await parseJsonOffThread(Buffer.from(JSON.stringify(body)), { result: 1_200_000 });
    expect(kept).toEqual({ ok: true, value: body, oversized: {} });
    expect(await parseJsonOffThread(Buffer.from('{"a":1,}'), {})).toEqual({ ok: false, busy: false, message: "Expected double-quoted property name in JSON at position 7" });
  });

  it("answer small jobs posted together in order, blaming only the one that runs out of time; those after it are checked by a new thread", async () => {
    const schema = { type: "object", properties: { n: { type: "integer", maximum: 10 } } };
    // A catastrophic backtracking pattern: "a" * 30 + "!" never matches (a+)+$ and takes seconds.
    const slowSchema = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } };
    const jobs = [
      validateArgsJson(schema, '{"n":1}'),
      validateArgsJson(schema, '{"n":11}'),
      validateArgsJson(slowSchema, JSON.stringify({ s: `${"a".repeat(32)}!` }), 300),
      validateArgsJson(schema, '{"n": 2, "z": [1,2]}'),
      validateArgsJson(schema, "[1]"),
    ];
    const [first, second, slow, fourth, fifth] = await Promise.all(jobs);
    expect(first).toEqual({ ok: true, canonical: '{"n":1}' });
    expect(second).toMatchObject({ ok: false, errors: [{ instancePath: "/n", message: "must be <= 10" }] });
    expect(slow).toMatchObject({ ok: false, errors: [{ keyword: "budget", message: "validating the args took longer than 300 ms; they are refused" }] });
    expect(fourth).toEqual({ ok: true, canonical: '{"n":2,"z":[1,2]}' });
    expect(fifth).toEqual({ ok: false, errors: [], refusal: "type" });
  });
});
