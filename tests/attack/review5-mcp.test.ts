import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as mcpRoute from "@/app/api/mcp/route";
import { db } from "@/lib/server/db";
import { reloadTestConsole, setUpTestConsole, writeNativeSkill, type TestConsole } from "../helpers/test-console";
import { createPerson, type TestPerson } from "../helpers/test-people";
import { createPersonaRow, createToken, waitForStatus } from "../api/approvals-fixtures";

// Review 5 (attacker): the MCP endpoint. A viewer's token must not run anything, a token never acts
// under another persona, and one HTTP request must not multiply into an unbounded amount of work (a
// JSON-RPC batch of 100 skill_search calls blocks the event loop 100 times over: the MCP revision the
// SDK speaks by default has no batches at all).

let testConsole: TestConsole;
let operator: TestPerson;
let viewerToken: Record<string, string>;
let marker: string;

beforeAll(async () => {
  testConsole = await setUpTestConsole();
  marker = path.join(testConsole.dir, "marker");
  writeNativeSkill(testConsole.nativeRoot, "ops", "touch-it", {
    frontmatter: "name: touch-it\ndescription: touches a marker file\nclass: safe",
    files: { "scripts/touch.sh": `#!/bin/sh\ntouch ${JSON.stringify(marker)}\necho touched\n` },
  });
  writeNativeSkill(testConsole.nativeRoot, "ops", "never-ends", {
    frontmatter: "name: never-ends\ndescription: talks on stderr and never ends\nclass: safe\ntimeout_seconds: 2",
    files: { "scripts/loop.sh": "#!/bin/bash\nwhile true; do echo tick >&2; sleep 0.05; done\n" },
  });
  await reloadTestConsole();
  await createPersonaRow("free", "dual-sign-required");
  operator = await createPerson("operator");
  // Viewers cannot create tokens: the token of an operator later demoted to viewer acts as a viewer.
  const demoted = await createPerson("operator");
  viewerToken = await createToken("free", demoted.headers);
  await db().user.update({ where: { email: demoted.email }, data: { role: "viewer" } });
});

function rpc(body: unknown, headers: Record<string, string>): Promise<Response> {
  return mcpRoute.POST(
    new Request("http://127.0.0.1/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

/** The JSON-RPC answers of a response, whether sent as JSON or as an SSE stream. */
async function answersOf(response: Response): Promise<Array<{ id?: unknown; result?: { isError?: boolean; content?: Array<{ text: string }> }; error?: unknown }>> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice("data: ".length)));
  }
  const parsed = JSON.parse(text);
  return Array.isArray(parsed) ? parsed : [parsed];
}

const callMessage = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe("MCP as an attacker", () => {
  it("a viewer's token cannot run a script (error result, nothing run, no call stored)", async () => {
    const before = await db().call.count();
    const response = await rpc(callMessage(1, "skill_run_script", { skill_name: "touch-it", script: "touch.sh" }), viewerToken);
    const [answer] = await answersOf(response);
    expect(answer!.result!.isError).toBe(true);
    expect(answer!.result!.content![0]!.text).toMatch(/^forbidden: skill_run_script runs a skill, which needs the operator role/);
    expect(fs.existsSync(marker)).toBe(false);
    expect(await db().call.count()).toBe(before);
  });

  it("an unauthenticated request with a huge body is refused 401 without the body being read", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 1000) controller.close();
        else controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const response = await mcpRoute.POST(
      new Request("http://127.0.0.1/api/mcp", { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit),
    );
    expect(response.status).toBe(401);
    expect(pulled).toBeLessThan(5);
  });

  it("a JSON-RPC batch of many tool calls is refused as a whole (nothing runs)", async () => {
    const token = await createToken("free", operator.headers);
    const batch = Array.from({ length: 50 }, (_, i) => callMessage(i + 1, "skill_search", { query: "touch marker file ".repeat(20) }));
    batch.push(callMessage(99, "skill_run_script", { skill_name: "touch-it", script: "touch.sh" }));
    const before = await db().call.count();
    const response = await rpc(batch, token);
    expect(response.status).toBe(400);
    const [answer] = await answersOf(response);
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    // Refused before any message ran: the skill_run_script in it stored no call (so nothing can run).
    expect(await db().call.count()).toBe(before);
  });

  it("a single message (no batch) still works for the same token", async () => {
    const token = await createToken("free", operator.headers);
    const response = await rpc(callMessage(7, "skill_search", { query: "touch" }), token);
    expect(response.status).toBe(200);
    const [answer] = await answersOf(response);
    expect(answer!.id).toBe(7);
    expect(JSON.parse(answer!.result!.content![0]!.text)).toMatchObject({ matches: [{ name: "touch-it" }] });
  });

  it("a body that is not JSON, or an oversized one, gets a JSON-RPC error, not a 500", async () => {
    const token = await createToken("free", operator.headers);
    const broken = await rpc("{not json", token);
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    const huge = await rpc(JSON.stringify(callMessage(1, "skill_search", { query: "x".repeat(9 * 1024 * 1024) })), token);
    expect(huge.status).toBe(413);
  });

  it("a client that disconnects from a call that never ends: the call still ends at its timeout, the console stays up", async () => {
    const token = await createToken("free", operator.headers);
    const controller = new AbortController();
    const response = await mcpRoute.POST(
      new Request("http://127.0.0.1/api/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...token },
        body: JSON.stringify(callMessage(1, "skill_run_script", { skill_name: "never-ends", script: "loop.sh" })),
        signal: controller.signal,
      }),
    );
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => undefined);
    const row = await db().call.findFirstOrThrow({ where: { skill: "never-ends" }, orderBy: { createdAt: "desc" }, select: { id: true } });
    expect(await waitForStatus(row.id, ["timed_out", "failed", "succeeded", "cancelled"], 10_000)).toBe("timed_out");
    // The console still answers.
    const after = await rpc(callMessage(2, "skill_search", { query: "touch" }), token);
    expect(after.status).toBe(200);
  });
});
