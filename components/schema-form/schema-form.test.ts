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

/** The text of each element of the HTML matching `tag` as a screen reader hears it (aria-hidden parts left out), in document order. */
function spokenTexts(html: string, tag: string): string[] {
  return [...html.matchAll(new RegExp(`<${tag}\\b[^>]*>(.*?)</${tag}>`, "g"))].map((match) =>
    match[1]!
      .replace(/<span aria-hidden="true"[^>]*>.*?<\/span>/g, "")
      .replace(/<[^>]+>/g, "")
      .replace(/&#x27;/g, "'"),
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

describe("SchemaForm: each array item is named by its position", () => {
  const target = {
    type: "object",
    title: "Target",
    required: ["host"],
    properties: {
      host: { type: "string", title: "Host" },
      port: { type: ["integer", "null"], title: "Port" },
      tls: { type: "object", title: "TLS", properties: { verify: { type: "boolean", title: "Verify" } } },
    },
  };

  it("an item of an array of objects: its legend, its fields, its buttons and its toolbar say which item", () => {
    const html = render({ type: "object", properties: { targets: { type: "array", title: "Targets", items: target } } }, { targets: [{ host: "a", port: 1 }, { host: "b", port: 2 }] });
    expect(spokenTexts(html, "legend")).toEqual(["Targets", "Target 1", "Target 1 TLS", "Target 2", "Target 2 TLS"]);
    expect(spokenTexts(html, "label")).toEqual(["Target 1 Host (required)", "Target 1 Port", "Target 1 Verify", "Target 2 Host (required)", "Target 2 Port", "Target 2 Verify"]);
    expect(ariaLabels(html, "button")).toEqual([
      "Clear Targets",
      "Set Target 1 Port to null",
      "Clear Target 1 Port",
      "Move Target 1 up",
      "Move Target 1 down",
      "Remove Target 1",
      "Set Target 2 Port to null",
      "Clear Target 2 Port",
      "Move Target 2 up",
      "Move Target 2 down",
      "Remove Target 2",
      "Add item to Targets",
    ]);
    expect(ariaLabels(html, "div")).toEqual(["Actions for Target 1", "Actions for Target 2"]);
  });

  it("an item of a union, of strings and of booleans goes by its array's label and position, read once", () => {
    const html = render(
      {
        type: "object",
        properties: {
          steps: { type: "array", title: "Steps", items: { oneOf: [{ type: "object", properties: { times: { type: "integer", title: "Times" } } }, { type: "object", required: ["reason"], properties: { reason: { type: "string", title: "Reason" } } }] } },
          words: { type: ["string", "array"], title: "Words", items: { type: "string" } },
          flags: { type: "array", title: "Flags", items: { type: "boolean" } },
        },
      },
      { steps: [{ times: 1 }, { reason: "x" }], words: ["a", "b"], flags: [true] },
    );
    expect(ariaLabels(html, "select")).toEqual(["Steps 1: option", "Steps 2: option", "Words: type"]);
    expect(spokenTexts(html, "label")).toEqual(["Steps 1", "Steps 1 Times", "Steps 2", "Steps 2 Reason (required)", "Words", "Words 1", "Words 2", "Flags 1"]);
    expect(ariaLabels(html, "button").filter((label) => label.startsWith("Remove"))).toEqual(["Remove Steps 1", "Remove Steps 2", "Remove Words 1", "Remove Words 2", "Remove Flags 1"]);
    // The checkbox draws its own label: no second one bound to it.
    expect(html).not.toContain('for="root_flags_0"');
  });

  it("nested arrays, maps and multi-selects inside an item start their names with the item's; an item that is an open object or an array says its position", () => {
    const html = render(
      {
        type: "object",
        properties: {
          hosts: {
            type: "array",
            title: "Hosts",
            items: {
              type: "object",
              title: "Host",
              properties: {
                ports: { type: "array", title: "Ports", items: { type: "integer" } },
                labels: { type: "object", title: "Labels", additionalProperties: { type: "string" } },
                checks: { type: "array", title: "Checks", uniqueItems: true, items: { type: "string", enum: ["ping", "ssh"] } },
              },
            },
          },
          overrides: { type: "array", title: "Overrides", items: { type: "object", additionalProperties: { type: "string" } } },
          matrix: { type: "array", title: "Matrix", items: { type: "array", items: { type: "integer" } } },
        },
      },
      { hosts: [{ ports: [22], labels: { zone: "a" } }, { ports: [80] }], overrides: [{ a: "x" }], matrix: [[1], [2]] },
    );
    const buttons = ariaLabels(html, "button");
    for (const name of [
      "Add item to Host 1 Ports",
      "Remove Host 1 Ports 1",
      "Remove Host 2 Ports 1",
      "Add item to Host 2 Ports",
      "Remove Host 1 zone",
      "Add property to Host 1 Labels",
      "Add property to Host 2 Labels",
      "Add property to Overrides 1",
      "Remove Overrides 1 a",
      "Remove Matrix 2 item 1",
      "Add item to Matrix 2",
      "Remove Matrix 2",
    ]) {
      expect(buttons.filter((label) => label === name)).toEqual([name]);
    }
    expect(ariaLabels(html, "input")).toEqual(["Key of Host 1 zone", "Key of Overrides 1 a"]);
    expect(ariaLabels(html, "div").filter((label) => label.includes("Checks"))).toEqual(["Host 1 Checks", "Host 2 Checks"]);
    expect(spokenTexts(html, "legend")).toEqual(["Hosts", "Host 1", "Host 1 Ports", "Host 1 Labels", "Host 2", "Host 2 Ports", "Host 2 Labels", "Overrides", "Overrides 1", "Matrix", "Matrix 1", "Matrix 2"]);
    expect(spokenTexts(html, "label").filter((text) => /ping|ssh|Ports \d|item/.test(text))).toEqual(["Host 1 Ports 1", "Host 1 ping", "Host 1 ssh", "Host 2 Ports 1", "Host 2 ping", "Host 2 ssh", "Matrix 1 item 1", "Matrix 2 item 1"]);
  });
});
