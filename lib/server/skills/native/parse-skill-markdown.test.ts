import { describe, expect, it } from "vitest";
import { quoteColonValues } from "./parse-skill-markdown";

describe("quoteColonValues", () => {
  it("quotes a plain value holding ': ', joining its continuation lines", () => {
    expect(quoteColonValues("name: x\ndescription: Use when: asked\n  to deploy: now\nlicense: MIT")).toEqual({
      text: 'name: x\ndescription: "Use when: asked to deploy: now"\nlicense: MIT',
      quoted: [{ line: 2, key: "description" }],
    });
  });

  it("quotes nested and list-item values, escaping quotes and backslashes", () => {
    expect(quoteColonValues('metadata:\n  note: a: "b" \\ c\nitems:\n  - tip: x: y')).toEqual({
      text: 'metadata:\n  note: "a: \\"b\\" \\\\ c"\nitems:\n  - tip: "x: y"',
      quoted: [
        { line: 2, key: "note" },
        { line: 4, key: "tip" },
      ],
    });
  });

  it("leaves quoted, block, flow and URL values alone, and answers null when nothing needed quoting", () => {
    expect(quoteColonValues("a: 'x: y'\nb: \"x: y\"\nc: |\n  x: y\nd: [x: y]\ne: https://example.com:8080/x")).toBeNull();
  });
});
