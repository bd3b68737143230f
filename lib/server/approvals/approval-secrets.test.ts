import { describe, expect, it } from "vitest";
import { approvalSecretsChange } from "./approval-secrets";

describe("approvalSecretsChange", () => {
  it("names each secret given, taken or changed since the approval recorded them, in name order", () => {
    const recorded = JSON.stringify({ A_KEY: "hmac-sha256:1", B_KEY: "hmac-sha256:2", C_KEY: "hmac-sha256:3" });
    expect(approvalSecretsChange(recorded, { A_KEY: "hmac-sha256:1", B_KEY: "hmac-sha256:2", C_KEY: "hmac-sha256:3" })).toBeNull();
    expect(approvalSecretsChange(recorded, { A_KEY: "hmac-sha256:1", C_KEY: "hmac-sha256:9", D_KEY: "hmac-sha256:4" })).toBe(
      "the skill's secrets changed after the call was requested: B_KEY (no longer given to the skill), C_KEY (another value), D_KEY (given to the skill since); what the approvers signed for is no longer what would run",
    );
  });

  it("does not check an approval stored before secrets were recorded, and refuses an unreadable record", () => {
    expect(approvalSecretsChange(null, { A_KEY: "hmac-sha256:1" })).toBeNull();
    for (const broken of ["{", "[]", "null", '"x"']) {
      expect(approvalSecretsChange(broken, {})).toBe("the approval's record of the skill's secrets is unreadable: the call is not run with secrets nobody can vouch for");
    }
  });
});
