import { describe, expect, it } from "vitest";
import { BoundedBuffer } from "./bounded-buffer";

describe("BoundedBuffer", () => {
  it("keeps everything up to the limit", () => {
    const buffer = new BoundedBuffer(6);
    expect(buffer.push(Buffer.from("abc"))).toBe(true);
    expect(buffer.push(Buffer.from("def"))).toBe(true);
    expect(buffer.hasOverflowed).toBe(false);
    expect(buffer.text()).toBe("abcdef");
  });

  it("keeps the first limit bytes and reports the overflow from then on", () => {
    const buffer = new BoundedBuffer(4);
    expect(buffer.push(Buffer.from("abc"))).toBe(true);
    expect(buffer.push(Buffer.from("def"))).toBe(false);
    expect(buffer.push(Buffer.from("g"))).toBe(false);
    expect(buffer.hasOverflowed).toBe(true);
    expect(buffer.text()).toBe("abcd");
  });
});
