import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { toFormSchema } from "./form-schema";
import { omitReadOnly, restoreReadOnly } from "./read-only-args";
import { argsValidator } from "./validator";

describe("omitReadOnly: read-only fields are not sent, at any depth", () => {
  const schema = toFormSchema({
    type: "object",
    $defs: {
      host: { type: "object", properties: { name: { type: "string" }, id: { type: "integer", readOnly: true } } },
      stamp: { type: "string", readOnly: true },
    },
    properties: {
      region: { type: "string", readOnly: true, default: "eu" },
      note: { type: "string" },
      hosts: { type: "array", items: { $ref: "#/$defs/host" } },
      stamps: { type: "array", items: { $ref: "#/$defs/stamp" } },
      nested: { type: "object", properties: { deep: { type: "object", properties: { etag: { type: "string", readOnly: true }, keep: { type: "boolean" } } } } },
      meta: { type: "object", additionalProperties: { type: "object", properties: { created: { type: "string", readOnly: true }, value: { type: "number" } } } },
      both: { allOf: [{ type: "object", properties: { a: { type: "string" } } }, { properties: { a: { readOnly: true } } }] },
      target: {
        oneOf: [
          { type: "object", properties: { kind: { const: "disk" }, path: { type: "string" }, inode: { type: "integer", readOnly: true } }, required: ["kind"] },
          { type: "object", properties: { kind: { const: "url" }, href: { type: "string" }, fetchedAt: { type: "string", readOnly: true } }, required: ["kind"] },
        ],
      },
    },
  });

  it("drops each read-only value and keeps everything else as it was", () => {
    const args = {
      region: "eu",
      note: "",
      hosts: [{ name: "a", id: 1 }, { id: 2 }],
      stamps: ["x", "y"],
      nested: { deep: { etag: "e", keep: false } },
      meta: { one: { created: "t", value: 1 }, two: { value: 2 } },
      both: { a: "gone" },
      target: { kind: "url", href: "https://x", fetchedAt: "now", inode: 4 },
    };
    expect(omitReadOnly(argsValidator, schema, args)).toEqual({
      note: "",
      // An item keeps its place even when emptied; an optional object emptied of read-only values goes.
      hosts: [{ name: "a" }, {}],
      stamps: [],
      nested: { deep: { keep: false } },
      meta: { one: { value: 1 }, two: { value: 2 } },
      // Only the shown branch's read-only fields go: inode is read-only in the other branch, not this one.
      target: { kind: "url", href: "https://x", inode: 4 },
    });
    expect(args.region).toBe("eu");
  });

  it("follows the picked branch of a union when the data alone does not tell", () => {
    const union: RJSFSchema = toFormSchema({
      type: "object",
      properties: { pick: { anyOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "object", properties: { a: { type: "string", readOnly: true } } }] } },
    });
    expect(omitReadOnly(argsValidator, union, { pick: { a: "x" } })).toEqual({ pick: { a: "x" } });
    expect(omitReadOnly(argsValidator, union, { pick: { a: "x" } }, new Map([["root_pick", 1]]))).toEqual({});
  });

  it("returns an empty object when the root itself is read-only", () => {
    expect(omitReadOnly(argsValidator, { type: "object", readOnly: true }, { a: 1 })).toEqual({});
  });
});

describe("restoreReadOnly: the read-only values the Raw JSON view left out come back to the form", () => {
  const schema = toFormSchema({
    type: "object",
    $defs: { target: { type: "object", properties: { host: { type: "string" }, id: { type: "string", readOnly: true }, tls: { type: "object", properties: { verify: { type: "boolean" } } } } } },
    properties: {
      region: { type: "string", readOnly: true, default: "eu" },
      note: { type: "string" },
      meta: { type: "object", properties: { etag: { type: "string", readOnly: true }, owner: { type: "string" } } },
      targets: { type: "array", items: { $ref: "#/$defs/target" } },
      stamps: { type: "array", items: { type: "string", readOnly: true } },
    },
  });
  const shown = {
    region: "eu",
    note: "n",
    meta: { etag: "e1" },
    targets: [{ host: "a", id: "srv-1", tls: { verify: true } }, { host: "b", id: "srv-2" }],
    stamps: ["x", "y"],
  };

  it("gives back exactly what the form held when the raw JSON was left as shown", () => {
    const viewed = omitReadOnly(argsValidator, schema, shown);
    expect(viewed).toEqual({ note: "n", targets: [{ host: "a", tls: { verify: true } }, { host: "b" }], stamps: [] });
    expect(restoreReadOnly(argsValidator, schema, shown, viewed)).toEqual(shown);
  });

  it("keeps every edit: typed values win, deleted shown values stay deleted, items match by position", () => {
    const edited = { region: "us", meta: { owner: "ops" }, targets: [{ host: "c" }, { host: "d", tls: {} }, { host: "e" }], stamps: ["z"] };
    expect(restoreReadOnly(argsValidator, schema, shown, edited)).toEqual({
      region: "us",
      // The optional object held only a read-only value: its value comes back beside the typed one.
      meta: { owner: "ops", etag: "e1" },
      // note was shown and deleted; tls was shown and deleted from item 1: both stay out.
      targets: [{ host: "c", id: "srv-1" }, { host: "d", tls: {}, id: "srv-2" }, { host: "e" }],
      // An edited array whose read-only items were left out has no place to put them back.
      stamps: ["z"],
    });
  });

  it("changes neither argument", () => {
    const edited = { note: "n" };
    restoreReadOnly(argsValidator, schema, shown, edited);
    expect(edited).toEqual({ note: "n" });
    expect(shown.meta).toEqual({ etag: "e1" });
  });
});
