/**
 * Pack signatures (DESIGN.md "Skill packs": ed25519 over the digest list, keys in
 * CONSOLE_PACK_TRUSTED_KEYS, remote unsigned packs refused by default), with real node:crypto keys.
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isLocalGitUrl } from "./pack-sources";
import { checkPackSignature, digestListOf, parseTrustedKeys, unsignedRefusal } from "./pack-signature";

const list = digestListOf([
  { path: "b/run.sh", kind: "x", sha256: "b".repeat(64) },
  { path: "a/skill.json", kind: "f", sha256: "a".repeat(64) },
]);

describe("the digest list", () => {
  it("names the format, then every file sorted by path, paths as JSON strings", () => {
    expect(list).toBe(`skill-console pack digests v1\nf ${"a".repeat(64)} "a/skill.json"\nx ${"b".repeat(64)} "b/run.sh"\n`);
  });
});

describe("trusted keys", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const spki = publicKey.export({ type: "spki", format: "der" });
  const raw = spki.subarray(spki.length - 32);
  const pem = publicKey.export({ type: "spki", format: "pem" }).toString();

  it("are read as raw keys, SPKI DER or PEM, and verify the signature of the digest list", () => {
    const keys = parseTrustedKeys(`raw=${raw.toString("base64")}, der=${spki.toString("base64")}\npem=${pem.replace(/\n/g, "\\n")}`);
    expect(keys.map((key) => key.name)).toEqual(["raw", "der", "pem"]);
    const signature = Buffer.from(sign(null, Buffer.from(list), privateKey).toString("base64"));
    for (const key of keys) expect(checkPackSignature(signature, list, [key])).toEqual({ status: "signed", by: key.name });
    expect(checkPackSignature(signature, list.replace("a/skill.json", "a/skill.jsoN"), keys).status).toBe("bad");
    expect(checkPackSignature(null, list, keys)).toEqual({ status: "unsigned" });
    expect(checkPackSignature(Buffer.from("not base64!"), list, keys)).toEqual({ status: "bad", reason: "pack.sig must hold base64 of a 64-byte ed25519 signature" });
    expect(checkPackSignature(signature, list, [])).toEqual({ status: "bad", reason: "pack.sig is signed, but no key is trusted (CONSOLE_PACK_TRUSTED_KEYS is empty), so the signature cannot be checked" });
  });

  it("refuse what is not an ed25519 public key, and names given twice", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "der" }).toString("base64");
    expect(() => parseTrustedKeys(`r=${rsa}`)).toThrow("key r is an rsa key, not ed25519");
    expect(() => parseTrustedKeys("x=AAAA")).toThrow("key x is not a public key (base64 of a raw ed25519 key, its SPKI DER, or a PEM)");
    expect(() => parseTrustedKeys(`a=${raw.toString("base64")},a=${raw.toString("base64")}`)).toThrow('key name "a" appears twice');
    expect(() => parseTrustedKeys("nokey")).toThrow('"nokey" must be name=key');
  });
});

describe("unsigned packs", () => {
  it("are refused from remote sources by default, from all with never, from none with always", () => {
    expect(unsignedRefusal("local", true)).toBeNull();
    expect(unsignedRefusal("local", false)).toBe("the pack comes from a remote source and is unsigned: sign its digest list with a key in CONSOLE_PACK_TRUSTED_KEYS (pack.sig), or set PACKS_ALLOW_UNSIGNED=always");
    expect(unsignedRefusal("never", true)).toMatch(/^the pack is unsigned and PACKS_ALLOW_UNSIGNED=never/);
    expect(unsignedRefusal("always", false)).toBeNull();
    expect([isLocalGitUrl("/srv/repo"), isLocalGitUrl("file:///srv/repo"), isLocalGitUrl("https://github.com/a/b"), isLocalGitUrl("git@github.com:a/b")]).toEqual([true, true, false, false]);
  });
});
