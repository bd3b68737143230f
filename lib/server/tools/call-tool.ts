import { JsonText } from "@/lib/validation/json-text";
import { defineStoredJson, storedTextOf } from "../http/stored-json";
import type { Call, CallEvent, CallStatus } from "@/lib/types/call";
import { roleAtLeast, type Identity } from "@/lib/types/identity";
import type { Persona } from "@/lib/types/persona";
import { formatAjvErrors, validateArgs } from "@/lib/validation/ajv";
import { subscribe } from "../calls/call-bus";
import { toCallEvent } from "../calls/call-record";
import { requestCall } from "../requests/request-call";
import { waitForCallEnd } from "../calls/wait-for-call";
import { getCall } from "../calls/read-calls";
import { db } from "../db";
import { AppError } from "../errors";
import { personaListsSkill } from "../personas/persona-skills";
import { scriptNames } from "../skills/native/run-script-schema";
import { getRegistry, type SkillRegistry } from "../skills/registry";
import { skillLoad, skillReadResource, skillSearch, visibleSkill } from "./read-skill-tools";
import { isSkillToolName, isToolShaped, skillTool, type SkillToolName } from "./skill-tools";

/** Input of callTool: who calls, under which (already resolved) persona, which tool with which arguments. */
export interface ToolCallInput {
  identity: Identity;
  /** The persona the call runs under (resolveCallPersona: a token's own, or the one a person named). */
  persona: Persona;
  /** A `skill_*` tool or a subprocess skill's manifest name. */
  name: string;
  /** The tool's arguments object (absent = `{}`). */
  arguments: unknown;
  /**
   * When given, a run is started without waiting and each stderr line of its timeline is passed here
   * while it runs (the MCP server turns them into log notifications); the answer still comes at the end.
   */
  onStderr?: (line: string) => void;
}

/** The result of a run that reached an end state (`POST /api/v1/tools/call` contract). */
export interface ToolRunResult {
  callId: string;
  status: CallStatus;
  exitCode: number | null;
  error: string | null;
  /** A subprocess skill's JSON result object, or a script's stdout text; null when there is none. */
  output: unknown;
  /**
   * Only for a run that did not succeed: the last STDERR_TAIL_LINES lines its skill wrote to stderr,
   * oldest first, so an agent learns why (`analyze: no such file: …`) without fetching the call.
   */
  stderrTail?: string[];
}

/** Stderr lines returned with a run that did not succeed. */
export const STDERR_TAIL_LINES = 20;

/** A call that waits for people: its id, status, a sentence saying so, and the console path of the call. */
export interface AwaitingToolCall {
  callId: string;
  status: "awaiting_confirmation" | "awaiting_approval";
  message: string;
  /** Path of the call's page in the console: `/calls/<id>`. */
  link: string;
}

/** What callTool answers: 200 with the result, or 202 for a call that awaits confirmation or approval. */
export type ToolCallAnswer = { status: 200; body: { result: unknown } } | { status: 202; body: AwaitingToolCall };

/** Role a run tool (skill_run_script, any subprocess skill tool) needs; read tools need only viewer. */
export const RUN_TOOL_ROLE = "operator" as const;

/**
 * Calls one LLM tool (`POST /api/v1/tools/call` and the MCP server's `tools/call`; issue 5 points 3–6).
 * Read tools (skill_search, skill_load, skill_read_resource) answer at once for any role. Run tools
 * (skill_run_script, and a subprocess skill named by its manifest name) need the operator role and go
 * through requestCall — resolveCallPersona, ajv args validation, availability, the persona's policy,
 * confirmation and dual-sign, the audit trail — and wait for the end state.
 * Throws AppError: `not_found` (404) for an unknown tool or skill, `invalid_args` (400, ajv errors in
 * `details`) for arguments the tool's schema refuses, `forbidden` (403) for a viewer running anything,
 * a skill outside the persona's lists, or a policy refusal, `conflict` (409) for an unavailable skill,
 * `bad_request` (400) for a tool used on the wrong kind of skill.
 */
export async function callTool(input: ToolCallInput): Promise<ToolCallAnswer> {
  const registry = await getRegistry();
  if (isSkillToolName(input.name)) return callSkillTool(input, input.name, registry);

  const skill = registry.get(input.name);
  if (!skill || !isToolShaped(skill)) throw new AppError("not_found", `no tool named ${JSON.stringify(input.name)}`);
  if (!personaListsSkill(input.persona, skill)) {
    throw new AppError("forbidden", `persona ${input.persona.name} may not use skill ${skill.name} (outside its skills list)`);
  }
  requireRunRole(input.identity, input.name);
  const call = await runSkill(input, skill.name, input.arguments);
  return await answerFor(call, "subprocess");
}

async function callSkillTool(input: ToolCallInput, tool: SkillToolName, registry: SkillRegistry): Promise<ToolCallAnswer> {
  if (tool === "skill_run_script") requireRunRole(input.identity, tool);
  const args = checkToolArguments(tool, input.arguments);
  const { persona } = input;
  switch (tool) {
    case "skill_search":
      return { status: 200, body: { result: skillSearch(persona, registry, args.query as string, args.limit as number | undefined) } };
    case "skill_load":
      return { status: 200, body: { result: skillLoad(persona, registry, args.skill_name as string) } };
    case "skill_read_resource":
      return { status: 200, body: { result: await skillReadResource(persona, registry, args.skill_name as string, args.path as string) } };
    case "skill_run_script": {
      const skill = visibleSkill(persona, registry, args.skill_name as string);
      if (skill.kind !== "native") {
        throw new AppError("bad_request", `${skill.name} is a subprocess skill, not a SKILL.md skill: call it as its own tool ${JSON.stringify(skill.name)}`);
      }
      const names = scriptNames(skill.resources.scripts);
      let script = args.script as string;
      // Models often pass the resource path (`scripts/check.sh`) rather than the name under scripts/.
      if (!names.includes(script) && script.startsWith("scripts/") && names.includes(script.slice("scripts/".length))) {
        script = script.slice("scripts/".length);
      }
      const call = await runSkill(input, skill.name, { script, args: (args.args as string[] | undefined) ?? [] });
      return await answerFor(call, "native");
    }
  }
}

/** Throws AppError `forbidden` unless the caller may run skills (operator and above; a token acts at most as an operator). */
function requireRunRole(identity: Identity, tool: string): void {
  if (roleAtLeast(identity.role, RUN_TOOL_ROLE)) return;
  const who = identity.token ? `API token ${identity.token.name} of ${identity.email}` : identity.email;
  throw new AppError("forbidden", `${tool} runs a skill, which needs the ${RUN_TOOL_ROLE} role; ${who} is a ${identity.role}`);
}

/**
 * Validates a `skill_*` tool's arguments against its schema (absent = `{}`). Returns them as an
 * object; throws AppError `invalid_args` with ajv's errors in `details` and in the message.
 */
function checkToolArguments(tool: SkillToolName, given: unknown): Record<string, unknown> {
  const args = given === undefined ? {} : given instanceof JsonText ? parseToolArgumentsText(tool, given) : given;
  const validation = validateArgs(skillTool(tool).parameters, args);
  if (!validation.ok) {
    throw new AppError("invalid_args", `arguments of ${tool} do not match its schema: ${formatAjvErrors(validation.errors)}`, validation.errors);
  }
  return args as Record<string, unknown>;
}

/**
 * Largest arguments text of a `skill_*` tool, in bytes: they are a query, a name, a path or a script's
 * argv, parsed on the main thread (unlike a skill's args, which the validation thread parses), so a
 * bound keeps that parse to a few milliseconds (issue 10 point 1).
 */
export const SKILL_TOOL_ARGUMENTS_MAX_BYTES = 256 * 1024;

function parseToolArgumentsText(tool: SkillToolName, given: JsonText): unknown {
  if (Buffer.byteLength(given.text, "utf8") > SKILL_TOOL_ARGUMENTS_MAX_BYTES) {
    throw new AppError("args_too_large", `arguments of ${tool} exceed ${SKILL_TOOL_ARGUMENTS_MAX_BYTES} bytes`);
  }
  try {
    return JSON.parse(given.text);
  } catch (error) {
    throw new AppError("bad_request", `request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Starts a call through requestCall and returns it at its end state, or as stored when it waits for people. */
async function runSkill(input: ToolCallInput, skillName: string, args: unknown): Promise<Call> {
  const request = { skillName, args, persona: input.persona.name, identity: input.identity, target: null };
  if (!input.onStderr) return (await requestCall({ ...request, wait: true })).call;
  const { call } = await requestCall({ ...request, wait: false });
  if (call.status === "awaiting_confirmation" || call.status === "awaiting_approval") return call;
  return followCall(call.id, input.onStderr);
}

/** Stored events read per database page while catching up with a call's timeline. */
const EVENT_PAGE = 2000;

/**
 * Follows a call until its end state, passing each stderr line of its timeline to `onStderr` exactly
 * once and in order: subscribes to the live channel first, then reads what is already stored, then the
 * live events (as the event stream does, lib/server/calls/call-event-stream.ts). Returns the finished Call.
 */
async function followCall(callId: string, onStderr: (line: string) => void): Promise<Call> {
  let lastSeq = 0;
  let replaying = true;
  const held: CallEvent[] = [];
  const deliver = (event: CallEvent) => {
    if (event.seq <= lastSeq) return;
    lastSeq = event.seq;
    if (event.stream === "stderr") onStderr(event.line);
  };
  const unsubscribe = subscribe(callId, {
    onEvents: (events) => (replaying ? held.push(...events) : events.forEach(deliver)),
    onEnd: () => undefined,
  });
  try {
    const readStored = async () => {
      for (;;) {
        const page = await db().callEvent.findMany({ where: { callId, seq: { gt: lastSeq } }, orderBy: { seq: "asc" }, take: EVENT_PAGE });
        for (const row of page) deliver(toCallEvent(row));
        if (page.length < EVENT_PAGE) return;
      }
    };
    await readStored();
    replaying = false;
    for (const event of held) deliver(event);
    const finished = (await waitForCallEnd(callId)) ?? (await getCall(callId));
    // Lines stored after the last live one (the end's own) are read once more.
    await readStored();
    return finished;
  } finally {
    unsubscribe();
  }
}

/** The path of a call's page in the console. */
export function callLink(callId: string): string {
  return `/calls/${callId}`;
}

/** The sentence a waiting call is answered with: who must act, and where (`link`: a path or a full URL). */
export function awaitingMessage(callId: string, status: AwaitingToolCall["status"], link: string): string {
  return status === "awaiting_approval"
    ? `Call ${callId} awaits approval by two approvers in the console: ${link}`
    : `Call ${callId} awaits confirmation by a person in the console: ${link}`;
}

async function answerFor(call: Call, kind: "native" | "subprocess"): Promise<ToolCallAnswer> {
  if (call.status === "awaiting_confirmation" || call.status === "awaiting_approval") {
    const link = callLink(call.id);
    return { status: 202, body: { callId: call.id, status: call.status, message: awaitingMessage(call.id, call.status, link), link } };
  }
  // A subprocess skill's result object goes on as stored, unparsed (stored-json.ts).
  const storedResult = kind === "subprocess" ? storedTextOf(call, "result") : undefined;
  const output = storedResult !== undefined ? null : kind === "native" ? (typeof call.result?.stdout === "string" ? call.result.stdout : null) : call.result;
  const result: ToolRunResult = { callId: call.id, status: call.status, exitCode: call.exitCode, error: call.error, output };
  if (storedResult !== undefined) defineStoredJson(result, "output", storedResult, null);
  if (call.status !== "succeeded") {
    const tail = await db().callEvent.findMany({ where: { callId: call.id, stream: "stderr" }, orderBy: { seq: "desc" }, take: STDERR_TAIL_LINES, select: { line: true } });
    result.stderrTail = tail.reverse().map((event) => event.line);
  }
  return { status: 200, body: { result } };
}
