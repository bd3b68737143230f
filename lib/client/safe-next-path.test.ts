import { describe, expect, it } from "vitest";
import { loginPathFor, safeNextPath } from "./safe-next-path";

describe("safeNextPath", () => {
  it.each([
    ["/calls", "/calls"],
    ["/calls?status=failed#top", "/calls?status=failed#top"],
    ["/skills/echo%20me", "/skills/echo%20me"],
    ["/a/../tokens", "/tokens"],
  ])("keeps the same-site path %s", (input, expected) => {
    expect(safeNextPath(input)).toBe(expected);
  });

  it.each([
    [undefined],
    [null],
    [""],
    ["calls"],
    ["https://evil.example/"],
    ["//evil.example/path"],
    ["/\\evil.example"],
    ["/\tevil"],
    ["javascript:alert(1)"],
    ["/login"],
    ["/login?next=/calls"],
  ])("refuses %s and answers /", (input) => {
    expect(safeNextPath(input)).toBe("/");
  });

  it("takes the first of repeated parameters", () => {
    expect(safeNextPath(["/tokens", "//evil.example"])).toBe("/tokens");
  });
});

describe("loginPathFor", () => {
  it("encodes the path as next", () => {
    expect(loginPathFor("/calls?status=failed")).toBe("/login?next=%2Fcalls%3Fstatus%3Dfailed");
  });

  it("leaves out next for the home page", () => {
    expect(loginPathFor("/")).toBe("/login");
  });
});
