import { describe, expect, it } from "vitest";
import { arrayItemName, spokenName } from "./item-names";

describe("arrayItemName: an item is named by its position", () => {
  it("after the item schema's title, else after its array's label, counting from 1", () => {
    expect(arrayItemName({ label: "Targets", isItem: false }, "Target", 1)).toBe("Target 2");
    expect(arrayItemName({ label: "Steps", isItem: false }, undefined, 0)).toBe("Steps 1");
    expect(arrayItemName({ label: "Steps", isItem: false }, "", 2)).toBe("Steps 3");
  });

  it("calls the untitled items of an array that is itself an item 'item' (its label already names it)", () => {
    expect(arrayItemName({ label: "Matrix 1", isItem: true }, undefined, 1)).toBe("item 2");
    expect(arrayItemName({ label: "Matrix 1", isItem: true }, "Row", 1)).toBe("Row 2");
  });
});

describe("spokenName: the enclosing items come first", () => {
  it("joins the items and the label with spaces", () => {
    expect(spokenName({ items: [], label: "Env" })).toBe("Env");
    expect(spokenName({ items: ["Target 2"], label: "Port" })).toBe("Target 2 Port");
    expect(spokenName({ items: ["Host 2", "Ports 1"], label: "Labels" })).toBe("Host 2 Ports 1 Labels");
  });
});
