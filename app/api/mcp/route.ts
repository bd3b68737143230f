import { handleMcpRequest, mcpIdentity, mcpMethodNotAllowed } from "@/lib/server/tools/mcp-server";

/**
 * `POST /api/mcp`: the console's MCP server (Streamable HTTP, stateless; issue 5 point 6), authenticated
 * by `Authorization: Bearer <API token>` only — see handleMcpRequest. Errors outside the protocol are
 * logged and answered 500 with a JSON-RPC error.
 */
export async function POST(request: Request): Promise<Response> {
  try {
    return await handleMcpRequest(request);
  } catch (error) {
    console.error("MCP request failed:", error);
    return Response.json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error; see the console's log." }, id: null }, { status: 500 });
  }
}

/** `GET /api/mcp`: 401 without a valid API token, else 405 — a stateless server offers no standalone event stream. */
export async function GET(request: Request): Promise<Response> {
  const identity = await mcpIdentity(request);
  return identity instanceof Response ? identity : mcpMethodNotAllowed();
}

/** `DELETE /api/mcp`: 401 without a valid API token, else 405 — a stateless server has no session to end. */
export async function DELETE(request: Request): Promise<Response> {
  const identity = await mcpIdentity(request);
  return identity instanceof Response ? identity : mcpMethodNotAllowed();
}
