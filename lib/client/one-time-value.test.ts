import { describe, expect, it } from "vitest";
import { OneTimeValue } from "./one-time-value";

const VALUE = "sk-live-0123456789abcdef";

describe("OneTimeValue", () => {
  it("hands the value over once, then refuses", () => {
    const box = new OneTimeValue(VALUE);
    expect(box.take()).toBe(VALUE);
    expect(() => box.take()).toThrow("already sent");
  });

  it("never serialises or stringifies to the value, before or after it is taken", () => {
    const variables = { name: "API_KEY", value: new OneTimeValue(VALUE), skills: ["a"] };
    for (const text of [JSON.stringify(variables), String(variables.value), `${variables.value}`, JSON.stringify(Object.entries(variables.value))]) {
      expect(text).not.toContain(VALUE);
    }
    expect(JSON.parse(JSON.stringify(variables))).toEqual({ name: "API_KEY", value: "[secret value]", skills: ["a"] });
    variables.value.take();
    expect(JSON.stringify(variables)).not.toContain(VALUE);
  });
});
