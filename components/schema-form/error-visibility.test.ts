import { describe, expect, it } from "vitest";
import { errorsShownFor } from "./error-visibility";

describe("errorsShownFor: a field's errors show once it, or a field inside it, lost focus", () => {
  const touched = new Set(["root_host", "root_targets_0_port", "root_auth__oneof_select"]);
  it.each([
    ["root_host", true],
    ["root_hostname", false],
    ["root_targets_0_port", true],
    ["root_targets_0", true],
    ["root_targets", true],
    ["root_targets_1_port", false],
    ["root_auth", true],
    ["root_auth__oneof_select", true],
    ["root_auth_token", false],
    ["root", true],
  ])("%s → %s", (id, shown) => {
    expect(errorsShownFor({ attempted: false, touched }, id)).toBe(shown);
  });
  it("shows every field's errors once Run was tried", () => {
    expect(errorsShownFor({ attempted: true, touched: new Set() }, "root_anything")).toBe(true);
    expect(errorsShownFor({ attempted: false, touched: new Set() }, "root_anything")).toBe(false);
  });
});
