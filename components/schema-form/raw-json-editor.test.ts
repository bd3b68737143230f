import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { FormFallback } from "./form-fallback";
import { parseArgsJson } from "./parse-args-json";
import { rawJsonStatus, type ArgsParseError } from "./raw-json-editor";

const notAnObject = parseArgsJson("[]") as ArgsParseError;

describe("rawJsonStatus: what the line under the Raw JSON editor says", () => {
  it("beside a form: edits go both ways, and the form keeps the last valid args while the text is invalid", () => {
    expect(rawJsonStatus(null, true)).toBe("Edits here update the form, and the form's edits show here.");
    expect(rawJsonStatus(notAnObject, true)).toBe("Args must be a JSON object ({ … }), not an array. The form keeps the last valid args until this is fixed.");
  });

  it("without a form: the args are edited as JSON here, and nothing is sent while the text is invalid", () => {
    expect(rawJsonStatus(null, false)).toBe("The form could not be built from this skill's schema, so the args are edited as JSON here.");
    expect(rawJsonStatus(notAnObject, false)).toBe("Args must be a JSON object ({ … }), not an array. Nothing is sent until this is fixed.");
  });

  it("the form's fallback says there is no form", () => {
    const html = renderToStaticMarkup(createElement(FormFallback, { formId: "f", reason: "no", value: {}, onChange: () => {}, onSubmit: () => {} }));
    expect(html).toContain(`<p id="f-raw-status" class="text-xs text-zinc-500">The form could not be built from this skill&#x27;s schema, so the args are edited as JSON here.</p>`);
  });
});
