import { describe, expect, it } from "vitest";
import { signatureCounts, signRefusal, type SignAttempt } from "./signature-rules";

const now = new Date("2026-01-01T12:00:00Z");
const base: SignAttempt = {
  approval: { id: "a1", status: "pending", requesterId: "requester", expiresAt: new Date("2026-01-01T13:00:00Z") },
  signer: { userId: "approver", via: "session" },
  alreadySigned: false,
  now,
};

describe("signRefusal (DESIGN.md dual-sign rules)", () => {
  const cases: Array<[string, Partial<SignAttempt> & { approval?: SignAttempt["approval"] }, ReturnType<typeof signRefusal>]> = [
    ["a second person on a pending approval", {}, null],
    ["an API token", { signer: { userId: "approver", via: "token" } }, { code: "forbidden", message: "a person must sign approvals; API tokens cannot" }],
    ["an approved approval", { approval: { ...base.approval, status: "approved" } }, { code: "conflict", message: "approval a1 is approved, not pending" }],
    ["a void approval", { approval: { ...base.approval, status: "void" } }, { code: "conflict", message: "approval a1 is void, not pending" }],
    ["an approval past its TTL", { approval: { ...base.approval, expiresAt: now } }, { code: "conflict", message: "approval a1 expired at 2026-01-01T12:00:00.000Z" }],
    ["the requester", { signer: { userId: "requester", via: "session" } }, { code: "forbidden", message: "the requester cannot sign their own call" }],
    ["someone who already signed", { alreadySigned: true }, { code: "conflict", message: "you already signed approval a1" }],
    ["someone whose signature a demotion voided", { alreadySigned: true, voidedBecause: "b@x was demoted from approver to viewer" }, { code: "conflict", message: "your signature on approval a1 was voided (b@x was demoted from approver to viewer); it cannot be given again" }],
  ];
  it.each(cases)("%s", (_name, change, expected) => {
    expect(signRefusal({ ...base, ...change })).toEqual(expected);
  });

  it("counts signatures of approvers and admins only, and never a voided one", () => {
    expect(["viewer", "operator", "approver", "admin"].map((role) => signatureCounts({ voidedAt: null, role }))).toEqual([false, false, true, true]);
    expect(["approver", "admin"].map((role) => signatureCounts({ voidedAt: new Date(0), role }))).toEqual([false, false]);
  });
});
