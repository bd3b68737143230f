import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fingerprintOf, keyIdOf, openSecret, sealSecret, SecretUnreadableError } from "./secret-box";

const key = Buffer.alloc(32, 7);

describe("sealing a secret", () => {
  it("opens what it sealed, with a fresh nonce each time and a keyed fingerprint", () => {
    const first = sealSecret(key, "API_KEY", "sk-abcdef-123456");
    const second = sealSecret(key, "API_KEY", "sk-abcdef-123456");
    expect(openSecret(key, "API_KEY", first)).toBe("sk-abcdef-123456");
    expect(first.ciphertext).not.toBe(second.ciphertext);
    expect(first.fingerprint).toBe(second.fingerprint);
    expect(first.fingerprint).toBe(fingerprintOf(key, "sk-abcdef-123456"));
    expect(first.fingerprint).not.toBe(fingerprintOf(randomBytes(32), "sk-abcdef-123456"));
    expect(first.keyId).toBe(keyIdOf(key));
    expect(Buffer.from(first.ciphertext, "base64").toString("latin1")).not.toContain("sk-abcdef");
  });

  it("refuses another key, another secret's row, and an altered ciphertext, naming the secret and never the value", () => {
    const sealed = sealSecret(key, "API_KEY", "sk-abcdef-123456");
    const other = Buffer.alloc(32, 9);
    expect(() => openSecret(other, "API_KEY", sealed)).toThrow(SecretUnreadableError);
    expect(() => openSecret(other, "API_KEY", sealed)).toThrow(`secret API_KEY was sealed with another key (${keyIdOf(key)}; this console's is ${keyIdOf(other)})`);
    expect(() => openSecret(key, "OTHER_KEY", sealed)).toThrow("secret OTHER_KEY does not authenticate under this console's key (altered in the database?): set it again");
    const bytes = Buffer.from(sealed.ciphertext, "base64");
    bytes[14] = bytes[14]! ^ 1;
    expect(() => openSecret(key, "API_KEY", { ...sealed, ciphertext: bytes.toString("base64") })).toThrow("secret API_KEY does not authenticate");
    expect(() => openSecret(key, "API_KEY", { ...sealed, ciphertext: "AAAA" })).toThrow("secret API_KEY is damaged in the database: set it again");
  });
});
