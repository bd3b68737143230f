import { describe, expect, it } from "vitest";
import { toFormSchema } from "./form-schema";
import { unionPickerId, unionPickerName } from "./union-picks";

describe("unionPickerName: a picker is named by its field and what it picks", () => {
  const schema = toFormSchema({
    type: "object",
    properties: {
      id: { type: ["string", "integer", "null"], title: "Id" },
      bare: { anyOf: [{ type: "string" }, { type: "integer" }] },
      limit: { anyOf: [{ type: "integer", minimum: 1 }, { type: "string", title: "Size" }] },
      source: { oneOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "object", properties: { b: { type: "string" } } }] },
    },
  });
  const property = (key: string) => schema.properties![key] as never;

  it("says 'type' when each option is titled by its JSON type alone (a union type, or an anyOf of bare types)", () => {
    expect(unionPickerName("Id", property("id"))).toBe("Id: type");
    expect(unionPickerName("bare", property("bare"))).toBe("bare: type");
  });

  it("says 'option' for any other anyOf/oneOf, typed options included", () => {
    expect(unionPickerName("Limit", property("limit"))).toBe("Limit: option");
    expect(unionPickerName("Source", property("source"))).toBe("Source: option");
  });

  it("gives the id rjsf gives the picker", () => {
    expect(unionPickerId("root_id", property("id"))).toBe("root_id__anyof_select");
    expect(unionPickerId("root_source", property("source"))).toBe("root_source__oneof_select");
  });
});
