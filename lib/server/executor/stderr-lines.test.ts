import { describe, expect, it } from "vitest";
import { StderrLines } from "./stderr-lines";

function collector(limitBytes: number, maxLineLength?: number) {
  const events: string[] = [];
  const sink = new StderrLines(
    limitBytes,
    { onLine: (line) => events.push(`line:${line}`), onTruncated: (kept) => events.push(`truncated:${kept}`) },
    maxLineLength,
  );
  return { events, sink };
}

describe("StderrLines", () => {
  it("emits lines under the limit and the last line at end", () => {
    const { events, sink } = collector(100);
    sink.push(Buffer.from("a\nb\nc"));
    sink.end();
    sink.end();
    expect(events).toEqual(["line:a", "line:b", "line:c"]);
  });

  it("keeps exactly the limit, flushes the cut line, reports truncation once and drops the rest", () => {
    const { events, sink } = collector(6);
    sink.push(Buffer.from("abc\nde"));
    sink.push(Buffer.from("fg\nhij\n"));
    sink.push(Buffer.from("more\n"));
    sink.end();
    expect(events).toEqual(["line:abc", "line:de", "truncated:6"]);
    expect(sink.totalBytes).toBe(18);
  });

  it("marks the line open at the byte limit as cut after, and pieces of a long line as cut", () => {
    const edges: Array<[string, boolean, boolean]> = [];
    const sink = new StderrLines(10, { onLine: (line, { cutBefore, cutAfter }) => edges.push([line, cutBefore, cutAfter]), onTruncated: () => {} }, 4);
    sink.push(Buffer.from("ab\ncdefgh"));
    sink.push(Buffer.from("ijkl\n"));
    sink.end();
    expect(edges).toEqual([
      ["ab", false, false],
      ["cdef", false, true],
      ["ghi", true, true],
    ]);
  });

  it("truncates inside the first chunk", () => {
    const { events, sink } = collector(3);
    sink.push(Buffer.from("abcdef\n"));
    sink.end();
    expect(events).toEqual(["line:abc", "truncated:3"]);
  });

  it("is not truncated at exactly the limit", () => {
    const { events, sink } = collector(4);
    sink.push(Buffer.from("abc\n"));
    sink.end();
    expect(events).toEqual(["line:abc"]);
  });
});
