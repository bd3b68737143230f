/**
 * MCP `tools/call` with `params` twice. The console's scanner cuts the FIRST `params.arguments` out of
 * the body as text (mcp-server.ts handleMcpRequest) and checks only that `params.arguments` does not
 * appear twice; JSON.parse (and so the MCP SDK) keeps the LAST `params`. Unlike readJsonBody (which
 * checks that the parsed body holds the placeholder where the text was cut), nothing checks that the
 * message the SDK dispatches is the one the arguments were cut from. So the tool named by the last
 * `params` ran with the arguments of a `params` that, for every JSON reader, is not in the message.
 * A key of the captured path twice, at any level, is now refused.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as mcpRoute from "@/app/api/mcp/route";
import { db } from "@/lib/server/db";
import { setUpTestConsole, writeSkill } from "../helpers/test-console";
import { createPersonaRow, createToken } from "../api/approvals-fixtures";
import { createPerson } from "../helpers/test-people";

let token: Record<string, string>;

beforeAll(async () => {
  const testConsole = await setUpTestConsole();
  writeSkill(testConsole.root, "echo_args", { name: "echo_args", schema: { type: "object" } }, "cat");
  writeSkill(testConsole.root, "other", { name: "other", schema: { type: "object" } }, "cat >/dev/null; echo '{}'");
  await createPersonaRow("agent", "dual-sign-required");
  const operator = await createPerson("operator");
  token = await createToken("agent", operator.headers);
});

function rpc(body: string): Promise<Response> {
  return mcpRoute.POST(
    new Request("http://127.0.0.1/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...token },
      body,
    }),
  );
}

describe("MCP tools/call with params twice", () => {
  it("runs with the arguments of the message JSON.parse reads, or refuses the body", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"other","arguments":{"hidden":"from the discarded params"}},"params":{"name":"echo_args"}}`;
    // What every JSON reader (a proxy, an audit log, the SDK itself) sees: echo_args with no arguments.
    expect(JSON.parse(body).params).toEqual({ name: "echo_args" });
    const response = await rpc(body);
    // Found by an attacker: 200, echo_args ran and stored args {"hidden": "from the discarded params"}.
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request: the body has params twice" } });
    expect(await db().call.count({ where: { skill: { in: ["echo_args", "other"] } } })).toBe(0);
  });
});
