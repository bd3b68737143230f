import { randomUUID } from "node:crypto";
import * as confirmRoute from "@/app/api/v1/calls/[id]/confirm/route";
import * as denyRoute from "@/app/api/v1/approvals/[id]/deny/route";
import * as signRoute from "@/app/api/v1/approvals/[id]/sign/route";
import * as skillCallsRoute from "@/app/api/v1/skills/[name]/calls/route";
import * as tokensRoute from "@/app/api/v1/tokens/route";
import { db } from "@/lib/server/db";
import type { Approval } from "@/lib/types/approval";
import type { Call, CallStatus } from "@/lib/types/call";
import type { PermissionMode } from "@/lib/types/persona";
import { invoke } from "../helpers/route-client";

/** Who sends a request in these tests: the admin (default) or a header set. */
export type Sender = "admin" | Record<string, string>;

/** Stores a persona row directly (persona CRUD is built in parallel; the tests seed through the database). */
export async function createPersonaRow(name: string, mode: PermissionMode, allow: string[] = ["*"], deny: string[] = []): Promise<void> {
  await db().persona.create({ data: { id: randomUUID(), name, permissionMode: mode, allow: JSON.stringify(allow), deny: JSON.stringify(deny) } });
}

/** `POST /api/v1/skills/{skill}/calls` with `body` as `as`. */
export function requestCall(skill: string, body: unknown, as: Sender = "admin"): Promise<Response> {
  return invoke(skillCallsRoute.POST, `/api/v1/skills/${skill}/calls`, { body, params: { name: skill }, as });
}

/** Requests a call that must answer 202, returning the call and (for dual-sign) its approval id. */
export async function requestWaitingCall(skill: string, persona: string, as: Sender, args: Record<string, unknown> = {}): Promise<{ call: Call; approvalId: string | null }> {
  const response = await requestCall(skill, { args, persona }, as);
  if (response.status !== 202) throw new Error(`expected 202, got ${response.status} ${await response.text()}`);
  const { call } = (await response.json()) as { call: Call };
  const approval = await db().approval.findUnique({ where: { callId: call.id }, select: { id: true } });
  return { call, approvalId: approval?.id ?? null };
}

/** `POST /api/v1/approvals/{id}/sign` as `as`. */
export function sign(approvalId: string, as: Sender): Promise<Response> {
  return invoke(signRoute.POST, `/api/v1/approvals/${approvalId}/sign`, { method: "POST", params: { id: approvalId }, as });
}

/** `POST /api/v1/approvals/{id}/deny` with `body` as `as`. */
export function deny(approvalId: string, body: unknown, as: Sender): Promise<Response> {
  return invoke(denyRoute.POST, `/api/v1/approvals/${approvalId}/deny`, { body, params: { id: approvalId }, as });
}

/** `POST /api/v1/calls/{id}/confirm` as `as`, with an optional body. */
export function confirm(callId: string, as: Sender, body?: unknown): Promise<Response> {
  return invoke(confirmRoute.POST, `/api/v1/calls/${callId}/confirm`, { method: "POST", body, params: { id: callId }, as });
}

/** Creates an API token for `persona` owned by the person behind `as`; returns its bearer headers. */
export async function createToken(persona: string, as: Sender, name = `agent-${randomUUID().slice(0, 8)}`): Promise<Record<string, string>> {
  const response = await invoke(tokensRoute.POST, "/api/v1/tokens", { body: { persona, name }, as });
  if (response.status !== 201) throw new Error(`token creation failed: ${response.status} ${await response.text()}`);
  const { token } = (await response.json()) as { token: string };
  return { authorization: `Bearer ${token}` };
}

/** The approval in a 200 answer. */
export async function approvalOf(response: Response): Promise<Approval> {
  return ((await response.json()) as { approval: Approval }).approval;
}

/** The error envelope of an answer. */
export async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

/** Waits until the stored call reaches one of `statuses` (polling the database) and returns its status. */
export async function waitForStatus(callId: string, statuses: CallStatus[], timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await db().call.findUniqueOrThrow({ where: { id: callId }, select: { status: true } });
    if ((statuses as string[]).includes(row.status)) return row.status;
    if (Date.now() > deadline) throw new Error(`call ${callId} is still ${row.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The audit actions recorded about one call, oldest first. */
export async function auditActions(callId: string): Promise<string[]> {
  return (await db().auditEvent.findMany({ where: { callId }, orderBy: { id: "asc" }, select: { action: true } })).map((row) => row.action);
}
