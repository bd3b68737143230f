import type { Call } from "./call";
import type { SkillSandbox } from "./skill";

/** Statuses of a dual-sign approval (DESIGN.md "Approval"). Only `pending` changes, by compare-and-set. */
export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired", "void"] as const;

/** An approval's status. */
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** One approver's signature: who (email) and when (ISO-8601). */
export interface ApprovalSignatureInfo {
  by: string;
  at: string;
}

/**
 * The dual-sign request of one dangerous call (DESIGN.md "Approval"; issue 4 point 5). `digest` is the
 * SHA-256 (hex) of `digestInput` — the canonical JSON of the skill name, the skill's digest (its whole
 * folder, manifest, env_allow, timeout and sandbox declaration) and the canonical args — frozen at
 * request time. `signatures` lists the signatures that still count (signers who are still
 * approvers). Times are ISO-8601.
 */
export interface Approval {
  id: string;
  callId: string;
  status: ApprovalStatus;
  digest: string;
  requestedBy: string;
  signatures: ApprovalSignatureInfo[];
  required: number;
  expiresAt: string;
  decidedBy: string | null;
  reason: string | null;
  createdAt: string;
  /**
   * What the digest covers, parsed (shown to approvers next to the args); null only in a listing that
   * left it out for its size (it holds the args), then `digestInputBytes` gives that size.
   */
  digestInput: Record<string, unknown> | null;
  /** Listings only: the size in bytes of a digestInput left out (see Call.omitted). */
  digestInputBytes?: number;
  /** The call it guards, with skill, persona and exact args (for the Approvals page). */
  call: Call;
  /** The skill's class at request time. */
  skillClass: string;
  /** What the approved call may reach beyond its folder when sandboxed (DESIGN.md: shown on every approval); null for older approvals. */
  sandbox: SkillSandbox | null;
  /** How many files of the skill's folder the digest covers; null for older approvals. */
  skillFiles: number | null;
}
