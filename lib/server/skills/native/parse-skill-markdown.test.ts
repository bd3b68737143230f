import { describe, expect, it } from "vitest";
import { quoteBrokenValues } from "./parse-skill-markdown";

describe("quoteBrokenValues", () => {
  it("quotes a plain value holding ': ', joining its continuation lines", () => {
    expect(quoteBrokenValues("name: x\ndescription: Use when: asked\n  to deploy: now\nlicense: MIT")).toEqual({
      text: 'name: x\ndescription: "Use when: asked to deploy: now"\nlicense: MIT',
      quoted: [{ line: 2, key: "description", why: "colon" }],
    });
  });

  it("quotes nested and list-item values, escaping quotes and backslashes", () => {
    expect(quoteBrokenValues('metadata:\n  note: a: "b" \\ c\nitems:\n  - tip: x: y')).toEqual({
      text: 'metadata:\n  note: "a: \\"b\\" \\\\ c"\nitems:\n  - tip: "x: y"',
      quoted: [
        { line: 2, key: "note", why: "colon" },
        { line: 4, key: "tip", why: "colon" },
      ],
    });
  });

  it("re-reads the values of keys in any script and of quoted keys", () => {
    expect(quoteBrokenValues('描述: 用法: 部署\n"description": Use when: asked\n\'when_to_use\': a: b\nétiquette: [a] b')).toEqual({
      text: '描述: "用法: 部署"\n"description": "Use when: asked"\n\'when_to_use\': "a: b"\nétiquette: "[a] b"',
      quoted: [
        { line: 1, key: "描述", why: "colon" },
        { line: 2, key: '"description"', why: "colon" },
        { line: 3, key: "'when_to_use'", why: "colon" },
        { line: 4, key: "étiquette", why: "flow" },
      ],
    });
  });

  it("leaves quoted, block, flow and URL values alone, and answers null when nothing needed quoting", () => {
    expect(quoteBrokenValues("a: 'x: y'\nb: \"x: y\"\nc: |\n  x: y\nd: [x: y]\ne: https://example.com:8080/x")).toBeNull();
  });

  it("reads a flow collection followed by more text as text, and leaves whole ones and comments alone", () => {
    expect(quoteBrokenValues('argument-hint: [title] [message]\ntags: [a, "b]"]\nmeta: {a: 1} # note\nodd: {x: "}"} y')).toEqual({
      text: 'argument-hint: "[title] [message]"\ntags: [a, "b]"]\nmeta: {a: 1} # note\nodd: "{x: \\"}\\"} y"',
      quoted: [
        { line: 1, key: "argument-hint", why: "flow" },
        { line: 4, key: "odd", why: "flow" },
      ],
    });
  });
});

describe("quoteBrokenValues and block scalars", () => {
  it("never touches the lines of a literal or folded block, whatever they read like", () => {
    const yaml = "description: Use when: asked\nnotes: |\n  Example: key: value\n  hint: [a] b\nfolded: >-\n  x: y: z\nafter: a: b";
    expect(quoteBrokenValues(yaml)).toEqual({
      text: 'description: "Use when: asked"\nnotes: |\n  Example: key: value\n  hint: [a] b\nfolded: >-\n  x: y: z\nafter: "a: b"',
      quoted: [
        { line: 1, key: "description", why: "colon" },
        { line: 7, key: "after", why: "colon" },
      ],
    });
  });
});
