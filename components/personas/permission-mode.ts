import type { BadgeTone } from "@/components/ui/badge";
import type { PermissionMode } from "@/lib/types/persona";

/** What each permission mode lets a persona do (DESIGN.md policy table), in one line for the form and the list. */
export const MODE_SUMMARY: Record<PermissionMode, string> = {
  "read-only": "Safe skills run; mutating and dangerous skills are denied.",
  "mutating-with-confirm": "Safe skills run; mutating skills run after one person confirms; dangerous skills are denied.",
  "dual-sign-required": "Safe skills run; mutating skills after one confirmation; dangerous skills after two other approvers sign.",
};

/** Badge colour of a permission mode: the more it may do, the warmer. */
export const MODE_TONE: Record<PermissionMode, BadgeTone> = {
  "read-only": "green",
  "mutating-with-confirm": "amber",
  "dual-sign-required": "red",
};
