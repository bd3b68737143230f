import { describe, expect, it } from "vitest";
import { LineSplitter } from "./line-splitter";

function feed(splitter: LineSplitter, chunks: Array<string | Buffer>): string[] {
  const lines = chunks.flatMap((chunk) => splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  return [...lines, ...splitter.end()];
}

describe("LineSplitter", () => {
  it.each([
    { name: "LF lines", chunks: ["a\nb\n"], lines: ["a", "b"] },
    { name: "CRLF lines", chunks: ["a\r\nb\r\n"], lines: ["a", "b"] },
    { name: "CRLF split between chunks", chunks: ["a\r", "\nb\r", "\n"], lines: ["a", "b"] },
    { name: "a line split across chunks", chunks: ["hel", "lo wo", "rld\n"], lines: ["hello world"] },
    { name: "empty lines kept", chunks: ["\n\na\n"], lines: ["", "", "a"] },
    { name: "last line without newline flushed at end", chunks: ["a\nlast"], lines: ["a", "last"] },
    { name: "a lone trailing CR is dropped at end", chunks: ["last\r"], lines: ["last"] },
    { name: "a CR inside a line is kept", chunks: ["50%\r100%\n"], lines: ["50%\r100%"] },
    { name: "nothing written", chunks: [], lines: [] },
  ])("$name", ({ chunks, lines }) => {
    expect(feed(new LineSplitter(), chunks)).toEqual(lines);
  });

  it("returns lines as soon as their newline arrives", () => {
    const splitter = new LineSplitter();
    expect(splitter.push(Buffer.from("one\ntw"))).toEqual(["one"]);
    expect(splitter.push(Buffer.from("o\n"))).toEqual(["two"]);
    expect(splitter.end()).toEqual([]);
  });

  it("decodes a multibyte UTF-8 character split across chunks", () => {
    const bytes = Buffer.from("né😀\n", "utf8"); // é = 2 bytes, 😀 = 4 bytes
    const chunks = [bytes.subarray(0, 2), bytes.subarray(2, 4), bytes.subarray(4, 6), bytes.subarray(6)];
    expect(feed(new LineSplitter(), chunks)).toEqual(["né😀"]);
  });

  it("cuts a line longer than the maximum into pieces, also across chunks", () => {
    const splitter = new LineSplitter(4);
    expect(splitter.push(Buffer.from("abcdefghij"))).toEqual(["abcd", "efgh"]);
    expect(splitter.push(Buffer.from("kl\nxy"))).toEqual(["ijkl"]);
    expect(splitter.end()).toEqual(["xy"]);
  });

  it("says where each piece was cut, across chunks, and that a line ended by its newline was not", () => {
    const splitter = new LineSplitter(4);
    expect(splitter.pushPieces(Buffer.from("abcdefghij"))).toEqual([
      { text: "abcd", cutBefore: false, cutAfter: true },
      { text: "efgh", cutBefore: true, cutAfter: true },
    ]);
    expect(splitter.pushPieces(Buffer.from("kl\nxy\nzz"))).toEqual([
      { text: "ijkl", cutBefore: true, cutAfter: false },
      { text: "xy", cutBefore: false, cutAfter: false },
    ]);
    expect(splitter.endPieces(true)).toEqual([{ text: "zz", cutBefore: false, cutAfter: true }]);
    expect(splitter.pushPieces(Buffer.from("abcdef"))).toEqual([{ text: "abcd", cutBefore: false, cutAfter: true }]);
    expect(splitter.endPieces()).toEqual([{ text: "ef", cutBefore: true, cutAfter: false }]);
  });

  it("never cuts a surrogate pair in half", () => {
    expect(feed(new LineSplitter(4), ["abc😀d\n"])).toEqual(["abc", "😀d"]);
  });

  it("does not emit the CR of a CRLF cut at the maximum as a line of its own", () => {
    expect(feed(new LineSplitter(4), ["abcd\r", "\nef\n"])).toEqual(["abcd", "ef"]);
  });

  it("keeps memory bounded for a giant line without newline", () => {
    const splitter = new LineSplitter(1024);
    let emitted = 0;
    for (let i = 0; i < 100; i += 1) emitted += splitter.push(Buffer.alloc(1000, "x")).length;
    expect(emitted).toBe(97);
    expect(splitter.end()).toEqual(["x".repeat(100_000 - 97 * 1024)]);
  });

  it("rejects a maximum below 2", () => {
    expect(() => new LineSplitter(1)).toThrow(RangeError);
  });
});
