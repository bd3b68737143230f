import { describe, expect, it } from "vitest";
import { SECRET_MASK, secretForms, secretMasker } from "./secret-masking";

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
    expect(secretForms("x\n}\n  \nsecret-line")).toEqual(["x\n}\n  \nsecret-line", "x\\n}\\n  \\nsecret-line", "secret-line"]);
  });
});
