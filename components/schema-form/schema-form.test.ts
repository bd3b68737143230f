import type { RJSFSchema } from "@rjsf/utils";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { toFormSchema } from "./form-schema";
import { SchemaForm, type Args } from "./schema-form";

/** The HTML of the args form for the skill schema `schema` holding `value`. */
function render(schema: unknown, value: Args = {}): string {
  return renderToStaticMarkup(createElement(SchemaForm, { formId: "f", schema: toFormSchema(schema as RJSFSchema), value, onChange: () => {}, onValidSubmit: () => {} }));
}

/** The `aria-label` of each element of the HTML matching `tag`, in document order. */
function ariaLabels(html: string, tag: string): string[] {
  return [...html.matchAll(new RegExp(`<${tag}\\b[^>]*?aria-label="([^"]*)"`, "g"))].map((match) => match[1]!.replace(/&#x27;/g, "'"));
}

/** The texts of the labels, legends and type lines of the HTML, in document order. */
function labelsAndHints(html: string): string[] {
  return [...html.matchAll(/<(legend|label)\b[^>]*>(.*?)<\/\1>|data-testid="field-hint">([^<]*)</g)].map((match) =>
    match[3] !== undefined ? `hint: ${match[3]}` : `${match[1]}: ${match[2]!.replace(/<[^>]+>/g, "")}`,
  );
}

describe("SchemaForm: union pickers", () => {
  const lookup = {
    title: "Lookup",
    oneOf: [
      { title: "By id", type: "object", properties: { id: { type: "integer", title: "Id" } } },
      { title: "By name", type: "object", properties: { tags: { type: ["string", "array"], title: "Tags", items: { type: "string" } }, where: { title: "Where", anyOf: [{ type: "object", title: "Near", properties: {} }, { type: "string", title: "Named" }] } } },
    ],
  };

  it("names each picker by its field's label and what it picks", () => {
    expect(ariaLabels(render(lookup, { tags: "a", where: "x" }), "select")).toEqual(["Lookup: option", "Tags: type", "Where: option"]);
  });

  it("shows a root oneOf's title as its picker's label; without a title the picker goes by the form's name", () => {
    expect(render(lookup)).toContain('<label for="root__oneof_select" class="block text-[13px] font-medium text-zinc-800">Lookup</label>');
    const untitled = render({ oneOf: lookup.oneOf });
    expect(untitled).not.toContain('for="root__oneof_select"');
    expect(ariaLabels(untitled, "select")).toEqual(["Arguments: option"]);
  });

  it("shows the title of a union whose type is object (rjsf leaves an object's label to its legend)", () => {
    const html = render({ type: "object", properties: { target: { type: "object", title: "Target", oneOf: [{ title: "A", properties: { a: { type: "string" } } }, { title: "B", properties: { b: { type: "string" } } }] } } });
    expect(labelsAndHints(html).slice(0, 2)).toEqual(["label: Target", "hint: object"]);
    expect(ariaLabels(html, "select")).toEqual(["Target: option"]);
  });
});

describe("SchemaForm: add buttons name what they add to", () => {
  it("Add property and Add item say which object or array, a union's option by its union's label", () => {
    const html = render(
      {
        type: "object",
        additionalProperties: { type: "string" },
        properties: {
          env: { type: "object", title: "Env", additionalProperties: { type: "string" } },
          limits: { type: "object", title: "Limits", additionalProperties: { type: "integer" } },
          hosts: { type: "array", title: "Hosts", items: { type: "string" } },
          words: { type: ["string", "array"], title: "Words", items: { type: "string" } },
        },
      },
      { words: [] },
    );
    expect(ariaLabels(html, "button").filter((label) => label.startsWith("Add"))).toEqual(["Add property to Env", "Add property to Limits", "Add item to Hosts", "Add item to Words", "Add property to Arguments"]);
  });
});

describe("SchemaForm: a field's type line follows its label", () => {
  it("after an array's legend, an object's legend and a checkbox's label, as after any other label", () => {
    const html = render({
      type: "object",
      properties: {
        name: { type: "string", title: "Name" },
        tags: { type: "array", title: "Tags", items: { type: "string" }, minItems: 1 },
        tls: { type: "object", title: "TLS", properties: { verify: { type: "boolean", title: "Verify" } } },
      },
    });
    expect(labelsAndHints(html)).toEqual(["label: Name", "hint: string", "legend: Tags", "hint: array of string · items ≥ 1", "legend: TLS", "label: Verify", "hint: boolean"]);
  });
});
