import { describe, expect, it } from "vitest";
import { createAjv } from "@/lib/validation/ajv";
import { describeLocatedError, describeSchemaError, formatFieldPath, locateSchemaError, pointerSegments } from "./validation-messages";

const schema = {
  type: "object",
  additionalProperties: false,
  required: ["message"],
  properties: {
    message: { type: "string", minLength: 1 },
    path: { type: "string", pattern: "^/" },
    email: { type: "string", format: "email" },
    when: { type: "string", format: "date-time" },
    mode: { enum: ["fast", "slow"] },
    window: {
      type: "object",
      required: ["tail_lines"],
      properties: { tail_lines: { type: "integer", minimum: 0, maximum: 100000 } },
    },
    patterns: { type: "array", minItems: 1, uniqueItems: true, items: { type: "string", maxLength: 3 } },
  },
};

/** The messages ajv (the server's configuration) gives for `args`, worded by describeLocatedError. */
function messagesFor(args: unknown): string[] {
  const validate = createAjv().compile(schema);
  validate(args);
  return (validate.errors ?? []).map((error) => describeLocatedError(error));
}

describe("describeLocatedError on real ajv errors", () => {
  it.each([
    [{ message: "hi", bogus: 1 }, "unknown field “bogus”"],
    [{}, "“message” is required"],
    [{ message: "" }, "message: must not be empty"],
    [{ message: "hi", path: "var/log" }, "path: must match the pattern ^/"],
    [{ message: "hi", email: "nope" }, "email: must be a valid email address"],
    [{ message: "hi", when: "yesterday" }, "when: must be a date and time in ISO 8601, e.g. 2024-05-01T12:00:00Z"],
    [{ message: "hi", mode: "medium" }, 'mode: must be one of "fast", "slow"'],
    [{ message: "hi", window: {} }, "window: “tail_lines” is required"],
    [{ message: "hi", window: { tail_lines: 1e6 } }, "window.tail_lines: must be at most 100000"],
    [{ message: "hi", window: { tail_lines: 1.5 } }, "window.tail_lines: must be an integer"],
    [{ message: "hi", patterns: [] }, "patterns: must have at least one item"],
    [{ message: "hi", patterns: ["abcd"] }, "patterns[0]: must be at most 3 characters long"],
    [{ message: "hi", patterns: ["a", "a"] }, "patterns: must not repeat an item (items 1 and 2 are the same)"],
    [{ message: 5 }, "message: must be a string"],
  ])("%j -> %s", (args, expected) => {
    expect(messagesFor(args)).toContain(expected);
  });
});

describe("describeSchemaError", () => {
  it("keeps ajv's message for keywords it does not word itself", () => {
    expect(describeSchemaError({ keyword: "if", message: 'must match "then" schema' })).toBe('must match "then" schema');
    expect(describeSchemaError({ keyword: "custom" })).toBe("fails the “custom” rule");
  });

  it("names unknown formats plainly", () => {
    expect(describeSchemaError({ keyword: "format", params: { format: "semver" } })).toBe("must be a valid semver");
  });
});

describe("field paths", () => {
  it("reads JSON pointers the way people write paths", () => {
    expect(pointerSegments("")).toEqual([]);
    expect(pointerSegments("/a~1b/c~0d/0")).toEqual(["a/b", "c~d", "0"]);
    expect(formatFieldPath(["window", "tail_lines"])).toBe("window.tail_lines");
    expect(formatFieldPath(["patterns", "0"])).toBe("patterns[0]");
    expect(formatFieldPath(["labels", "a b"])).toBe('labels["a b"]');
  });
});

describe("locateSchemaError", () => {
  it("splits a located error into the field path and the message", () => {
    expect(locateSchemaError({ keyword: "maximum", instancePath: "/window/tail_lines", params: { limit: 10 } })).toEqual({
      path: "window.tail_lines",
      message: "must be at most 10",
    });
    expect(locateSchemaError({ keyword: "additionalProperties", instancePath: "", params: { additionalProperty: "x" } })).toEqual({
      path: "",
      message: "unknown field “x”",
    });
  });
});
