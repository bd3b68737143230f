import { describe, expect, it } from "vitest";
import type { Approval } from "@/lib/types/approval";
import type { Identity, Role } from "@/lib/types/identity";
import { approvalActionBlock } from "./approval-actions";
import { formatTimeLeft } from "./approval-time";

function approval(overrides: Partial<Approval> = {}): Approval {
  return {
    id: "ap1",
    callId: "c1",
    status: "pending",
    digest: "ab".repeat(32),
    requestedBy: "req@console.local",
    signatures: [],
    required: 2,
    expiresAt: "2026-11-30T02:00:00.000Z",
    decidedBy: null,
    reason: null,
    createdAt: "2026-11-30T01:00:00.000Z",
    digestInput: {},
    call: {} as Approval["call"],
    skillClass: "dangerous",
    sandbox: null,
    skillFiles: null,
    ...overrides,
  };
}

function person(email: string, role: Role = "approver", via: Identity["via"] = "session"): Identity {
  return { userId: email, email, name: email, role, via, token: null };
}

describe("approvalActionBlock", () => {
  it("lets another approver act on a pending approval", () => {
    expect(approvalActionBlock(approval(), person("other@console.local"))).toBeNull();
    expect(approvalActionBlock(approval(), person("admin@console.local", "admin"))).toBeNull();
  });

  it("names why the buttons are disabled", () => {
    expect(approvalActionBlock(approval(), person("req@console.local"))).toBe("you requested this call");
    expect(approvalActionBlock(approval({ signatures: [{ by: "a@console.local", at: "2026-11-30T01:10:00.000Z" }] }), person("a@console.local"))).toMatch(
      /^you signed at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
    );
    expect(approvalActionBlock(approval(), person("op@console.local", "operator"))).toBe("only approvers may sign or deny; you are an operator");
    expect(approvalActionBlock(approval(), person("v@console.local", "viewer"))).toBe("only approvers may sign or deny; you are a viewer");
    expect(approvalActionBlock(approval(), person("t@console.local", "admin", "token"))).toMatch(/API tokens cannot/);
    expect(approvalActionBlock(approval({ status: "denied" }), person("other@console.local"))).toBe("this approval is denied");
    expect(approvalActionBlock(approval(), undefined)).toBe("checking who you are…");
  });
});

describe("formatTimeLeft", () => {
  const end = "2026-11-30T02:00:00.000Z";
  const at = (secondsBefore: number) => new Date(end).getTime() - secondsBefore * 1000;
  it.each([
    [45, "45s left"],
    [725, "12m 05s left"],
    [3720, "1h 02m left"],
    [0, "expired"],
    [-10, "expired"],
  ])("%i s before the end -> %s", (seconds, text) => {
    expect(formatTimeLeft(end, at(seconds))).toBe(text);
  });
  it("gives a dash for a bad time", () => expect(formatTimeLeft("nope", 0)).toBe("—"));
});
