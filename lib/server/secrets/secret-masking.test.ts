import { describe, expect, it } from "vitest";
import { SECRET_MASK, maskJsonValue, secretForms, secretMasker } from "./secret-masking";

describe("masking secrets", () => {
  it("replaces every occurrence of each value, longest first", () => {
    const mask = secretMasker(["abcd-1234", "abcd-1234-extra"]);
    expect(mask("a abcd-1234-extra b abcd-1234 c abcd-1234")).toBe(`a ${SECRET_MASK} b ${SECRET_MASK} c ${SECRET_MASK}`);
    expect(mask("nothing here")).toBe("nothing here");
    expect(secretMasker([])("abcd-1234")).toBe("abcd-1234");
  });

  it("masks a value's JSON-escaped form and each line of a multi-line value", () => {
    const pem = "-----BEGIN KEY-----\nMIIBVQIBADANBgkqhkiG9w0B\n-----END KEY-----";
    const mask = secretMasker([pem, 'pa"ss\\word']);
    expect(mask(JSON.stringify({ key: pem }))).toBe(`{"key":"${SECRET_MASK}"}`);
    expect(mask("line: MIIBVQIBADANBgkqhkiG9w0B")).toBe(`line: ${SECRET_MASK}`);
    expect(mask(JSON.stringify({ password: 'pa"ss\\word' }))).toBe(`{"password":"${SECRET_MASK}"}`);
    expect(mask('raw pa"ss\\word')).toBe(`raw ${SECRET_MASK}`);
  });

  it("treats a value's regular-expression characters as text", () => {
    expect(secretMasker(["a.b*c+(d)"])("a.b*c+(d) axbbbcd")).toBe(`${SECRET_MASK} axbbbcd`);
    expect(secretForms("x\n}\n  \nsecret-line")).toEqual([
      "x\n}\n  \nsecret-line",
      "x\\n}\\n  \\nsecret-line",
      "x%0A%7D%0A%20%20%0Asecret-line",
      "x%0A%7D%0A++%0Asecret-line",
      "secret-line",
    ]);
  });

  it("masks the escaped forms other encoders write: Python's ASCII-only JSON, Go's HTML-safe JSON, PHP's slashes, URL encoding", () => {
    const mask = secretMasker(["pässwörd</x>&y"]);
    expect(mask('{"p": "p\\u00e4ssw\\u00f6rd</x>&y"}')).toBe(`{"p": "${SECRET_MASK}"}`);
    expect(mask('{"p":"pässwörd\\u003c/x\\u003e\\u0026y"}')).toBe(`{"p":"${SECRET_MASK}"}`);
    expect(mask('{"p":"pässwörd<\\/x>&y"}')).toBe(`{"p":"${SECRET_MASK}"}`);
    expect(mask(`GET /?p=${encodeURIComponent("pässwörd</x>&y")} HTTP/1.1`)).toBe(`GET /?p=${SECRET_MASK} HTTP/1.1`);
    expect(secretMasker(["two words here"])("q=two+words+here")).toBe(`q=${SECRET_MASK}`);
  });

  it("masks each string of a secret that is a JSON document, and the document's escaped lines", () => {
    const account = JSON.stringify({ type: "service_account", private_key: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG\n-----END PRIVATE KEY-----\n", client_email: "bot@project-1234.iam.example.com" });
    const mask = secretMasker([account]);
    expect(mask("email bot@project-1234.iam.example.com")).toBe(`email ${SECRET_MASK}`);
    expect(mask("key line MIIEvQIBADANBgkqhkiG")).toBe(`key line ${SECRET_MASK}`);
    expect(mask("type service_account")).toBe("type service_account");
  });

  it("masks a value of 40 KiB of lines without a regular expression too large, in one pass", () => {
    const bundle = Array.from({ length: 640 }, (_, index) => `line ${index} ${"Q".repeat(56)}`).join("\n");
    const mask = secretMasker([bundle]);
    expect(mask(`before ${bundle} after`)).toBe(`before ${SECRET_MASK} after`);
    expect(mask(`one line 17 ${"Q".repeat(56)}!`)).toBe(`one ${SECRET_MASK}!`);
  });

  it("masks secrets inside decoded JSON strings and keys, returning the same object when nothing changed", () => {
    const mask = secretMasker(["hunter2-long"]);
    const clean = { a: ["x", { b: 1 }] };
    expect(maskJsonValue(clean, mask)).toBe(clean);
    expect(maskJsonValue({ "hunter2-long": ["ok", "is hunter2-long"] }, mask)).toEqual({ [SECRET_MASK]: ["ok", `is ${SECRET_MASK}`] });
  });

  it("masks the part of a value a cut leaves at a line's edge, and only at a cut edge", () => {
    const value = "sk-live-0123456789abcdef";
    const mask = secretMasker([value]);
    const line = `${"x".repeat(30)}${value}${"y".repeat(30)}`;
    for (const cutAt of [34, 40, 50]) {
      const [head, tail] = [line.slice(0, cutAt), line.slice(cutAt)];
      expect(mask(head, { cutBefore: false, cutAfter: true })).toBe(`${"x".repeat(30)}${SECRET_MASK}`);
      expect(mask(tail, { cutBefore: true, cutAfter: false })).toBe(`${SECRET_MASK}${"y".repeat(30)}`);
    }
    // Fewer than 4 characters of it at an edge are left as they are; a line not cut is not touched.
    expect(mask(`${"x".repeat(30)}sk-`, { cutBefore: false, cutAfter: true })).toBe(`${"x".repeat(30)}sk-`);
    expect(mask(`${"x".repeat(30)}sk-live`)).toBe(`${"x".repeat(30)}sk-live`);
    expect(mask(`${"x".repeat(30)}sk-live`, { cutBefore: false, cutAfter: false })).toBe(`${"x".repeat(30)}sk-live`);
    // A whole value inside a cut piece, and parts at both ends of one piece.
    expect(mask(`uvwxyz${value}ghij`, { cutBefore: true, cutAfter: true })).toBe(`uvwxyz${SECRET_MASK}ghij`);
    expect(mask(`456789abcdef middle sk-live-01`, { cutBefore: true, cutAfter: true })).toBe(`${SECRET_MASK} middle ${SECRET_MASK}`);
  });
});
