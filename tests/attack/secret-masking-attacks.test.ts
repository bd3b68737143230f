/**
 * Getting a secret's value past the mask (DESIGN.md "Skill secrets": masked wherever it appears in a
 * timeline, a result, an error or an export), tried for real through the HTTP routes and a real worker
 * by skills that print it the ways an attacker (or an innocent encoder) would: Python's ASCII-only
 * json.dumps escapes; JSON-document secrets printed one field at a time; URL-encoded; standing across
 * the cut of a 64 Ki-character stderr line and across the stderr byte limit; quoted by the error of a
 * result that is not JSON; a 40 KiB multi-line value (the single regular expression it once made was
 * too large for V8, whose error quoted the value and left the call running). Each must show the mask
 * and never the value, in the call, its timeline and the database. Also: a malformed secrets body is
 * not quoted back (JSON.parse's message quotes the text around the error).
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as callRoute from "@/app/api/v1/calls/[id]/route";
import * as timelineRoute from "@/app/api/v1/calls/[id]/timeline.txt/route";
import * as secretsRoute from "@/app/api/v1/secrets/route";
import { db } from "@/lib/server/db";
import { SECRET_MASK } from "@/lib/server/secrets/secret-masking";
import type { Call, CallWithEvents } from "@/lib/types/call";
import { errorOf, requestCall } from "../api/approvals-fixtures";
import { invoke } from "../helpers/route-client";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";

/** The stderr byte limit of this console: long enough for a 64 Ki line, short enough to reach quickly. */
const STDERR_LIMIT = 200_000;
const TOKEN = "tok-3f9a1c7e5b2d4c6e8a0f1b2c";
const ACCENTED = "pässwörd-ÄÖÜ-çñ-1234";
const ACCOUNT = JSON.stringify({ type: "service_account", private_key: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n", client_email: "robot@project-7731.iam.example.com" });
const BUNDLE = Array.from({ length: 640 }, (_, index) => `cert-line-${String(index).padStart(3, "0")}-${"Q".repeat(50)}`).join("\n");
const SECRETS: Record<string, string> = { ATTACK_TOKEN: TOKEN, ATTACK_ACCENTED: ACCENTED, ATTACK_ACCOUNT: ACCOUNT, ATTACK_BUNDLE: BUNDLE };

/** A skill that runs `python` (a Python 3 program) with the secrets in its environment. */
const pythonSkill = (python: string) => `exec python3 - <<'PY'\nimport json, os, sys, urllib.parse\n${python}\nPY`;

const SKILLS: Record<string, string> = {
  ascii_json: pythonSkill('print(json.dumps({"p": os.environ["ATTACK_ACCENTED"]}))'),
  account_fields: pythonSkill(
    'a = json.loads(os.environ["ATTACK_ACCOUNT"])\nsys.stderr.write("email " + a["client_email"] + "\\n")\nsys.stderr.write(a["private_key"])\nprint(json.dumps({"email": a["client_email"]}))',
  ),
  url_encoded: pythonSkill('sys.stderr.write("GET /?p=" + urllib.parse.quote(os.environ["ATTACK_ACCENTED"]) + "&t=" + urllib.parse.quote_plus(os.environ["ATTACK_TOKEN"]) + "\\n")\nprint("{}")'),
  // The value stands across the 65,536-character cut of one stderr line.
  straddle_line: pythonSkill('sys.stderr.write("x" * (65536 - 10) + os.environ["ATTACK_TOKEN"] + "y" * 10 + "\\n")\nprint("{}")'),
  // The value stands across the stderr byte limit: all but its last 8 characters are kept.
  straddle_limit: pythonSkill(`sys.stderr.write("x" * (${STDERR_LIMIT} - ${TOKEN.length - 8}) + os.environ["ATTACK_TOKEN"] + "\\n")\nprint("{}")`),
  // Not JSON, starting with the value: the error quotes the stdout's first characters.
  error_excerpt: pythonSkill('print(os.environ["ATTACK_TOKEN"] + " and more text that is not json")'),
  bundle: pythonSkill('sys.stderr.write(os.environ["ATTACK_BUNDLE"] + "\\n")\nprint(json.dumps({"n": len(os.environ["ATTACK_BUNDLE"])}))'),
};

/** Every text in which the value (or a telling piece of it) must not be found. */
const FORBIDDEN = [TOKEN, TOKEN.slice(0, 12), TOKEN.slice(-12), ACCENTED, "p\\u00e4ssw\\u00f6rd", encodeURIComponent(ACCENTED), "robot@project-7731", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "cert-line-017"];

beforeAll(async () => {
  const testConsole = await setUpTestConsole({ SKILL_STDERR_LIMIT_BYTES: String(STDERR_LIMIT) });
  for (const [name, script] of Object.entries(SKILLS)) writeSkill(testConsole.root, name, { name }, script);
  for (const [name, value] of Object.entries(SECRETS)) {
    const created = await invoke(secretsRoute.POST, "/api/v1/secrets", { body: { name, value, skills: Object.keys(SKILLS) } });
    expect(created.status).toBe(201);
  }
});

/** Runs `skill` to its end; returns the call with its timeline and the timeline download. */
async function attack(skill: string): Promise<{ call: CallWithEvents; download: string; answer: string }> {
  const response = await requestCall(skill, { args: {}, wait: true });
  expect(response.status).toBe(200);
  const { call } = (await response.json()) as { call: Call };
  const answer = await (await invoke(callRoute.GET, `/api/v1/calls/${call.id}`, { params: { id: call.id } })).text();
  const download = await (await invoke(timelineRoute.GET, `/api/v1/calls/${call.id}/timeline.txt`, { params: { id: call.id } })).text();
  return { call: (JSON.parse(answer) as { call: CallWithEvents }).call, download, answer };
}

function expectNoValue(...texts: string[]): void {
  for (const text of texts) for (const forbidden of FORBIDDEN) expect(text).not.toContain(forbidden);
}

const stderrOf = (call: CallWithEvents) => call.events.filter((event) => event.stream === "stderr").map((event) => event.line);

describe("a skill printing its secret so the mask would miss it", { timeout: 60_000 }, () => {
  it("as Python's ASCII-only JSON (\\u00e4): the result is masked", async () => {
    const { call, answer, download } = await attack("ascii_json");
    expect(call.status).toBe("succeeded");
    expect(call.result).toEqual({ p: SECRET_MASK });
    expectNoValue(answer, download);
  });

  it("one field of a JSON-document secret at a time: each field is masked", async () => {
    const { call, answer, download } = await attack("account_fields");
    expect(call.result).toEqual({ email: SECRET_MASK });
    expect(stderrOf(call)).toEqual([`email ${SECRET_MASK}`, SECRET_MASK, SECRET_MASK, SECRET_MASK]);
    expectNoValue(answer, download);
  });

  it("URL-encoded, with %XX and with +: masked", async () => {
    const { call, answer } = await attack("url_encoded");
    expect(stderrOf(call)).toEqual([`GET /?p=${SECRET_MASK}&t=${SECRET_MASK}`]);
    expectNoValue(answer);
  });

  it("across the cut of a 64 Ki-character line: both parts are masked", async () => {
    const { call, answer, download } = await attack("straddle_line");
    const lines = stderrOf(call);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`${"x".repeat(65536 - 10)}${SECRET_MASK}`);
    expect(lines[1]).toBe(`${SECRET_MASK}${"y".repeat(10)}`);
    expectNoValue(answer, download);
  });

  it("across the stderr byte limit: the part kept is masked", async () => {
    const { call, answer, download } = await attack("straddle_limit");
    expect(call.stderrTruncated).toBe(true);
    const lines = stderrOf(call);
    // One line of 199,980 x's and 20 characters of the value, in 64 Ki pieces; the truncation marker after it.
    expect(lines.slice(0, 4).join("")).toBe(`${"x".repeat(STDERR_LIMIT - (TOKEN.length - 8))}${SECRET_MASK}`);
    expect(lines).toHaveLength(4);
    expectNoValue(answer, download);
  });

  it("at the start of a stdout that is not JSON: the error quotes it masked", async () => {
    const { call, answer } = await attack("error_excerpt");
    expect(call.status).toBe("failed");
    expect(call.error).toContain(`${SECRET_MASK} and more text`);
    expectNoValue(answer);
  });

  it("as a 40 KiB multi-line value: every line is masked, and the call ends", async () => {
    const { call, answer, download } = await attack("bundle");
    expect(call.status).toBe("succeeded");
    expect(call.result).toEqual({ n: BUNDLE.length });
    expect(new Set(stderrOf(call))).toEqual(new Set([SECRET_MASK]));
    expectNoValue(answer, download);
  });

  it("reaches no stored text", async () => {
    expectNoValue(JSON.stringify([await db().call.findMany(), await db().callEvent.findMany(), await db().auditEvent.findMany()]));
  });
});

describe("a malformed secrets body", () => {
  it("is refused without quoting the text around the error, which may be the value", async () => {
    const response = await invoke(secretsRoute.POST, "/api/v1/secrets", { body: `{"name": "X_KEY", "value": "${TOKEN}" oops}` });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.message).toBe("request body is not valid JSON (the text around the error is not quoted back: it may hold a secret's value)");
    expect(JSON.stringify(error)).not.toContain(TOKEN.slice(-8));
  });
});
