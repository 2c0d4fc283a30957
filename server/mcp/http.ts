import { TRPCError } from "@trpc/server";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Db } from "@/db/client";
import { createTokenContext } from "@/server/api/context";
import { MAX_BODY_BYTES } from "@/server/api/handler";
import { unauthenticated } from "@/server/api/trpc";
import { DomainError } from "@/server/domain/errors";
import { callerApi } from "@/server/cli/local-api";
import { createMcpServer } from "./server";

/**
 * The MCP endpoint (`/api/mcp`, Streamable HTTP, stateless): each POST gets a server and a
 * transport of its own, acting as the request's API token (the same tokens, roles and agent-label
 * header as /api/trpc). Tokens only: a browser's cookies are never read, so no other site can
 * make a signed-in person's browser write through it.
 */
export async function handleMcpRequest(req: Request, db: () => Db): Promise<Response> {
  // Stateless: no session to resume (GET) or end (DELETE).
  if (req.method !== "POST")
    return jsonRpcError(405, -32000, "method not allowed: POST a JSON-RPC message (stateless Streamable HTTP)", undefined, { allow: "POST" });
  let context;
  try {
    context = await createTokenContext(req, db());
  } catch (error) {
    if (error instanceof TRPCError && error.code === "BAD_REQUEST") return jsonRpcError(400, -32602, error.message, { rule: "input.invalid" });
    throw error;
  }
  if (!context?.actor) {
    const refusal = unauthenticated(context?.via ?? "none");
    const rule = refusal.cause instanceof DomainError ? refusal.cause.rule : undefined;
    return jsonRpcError(401, -32001, refusal.message, { rule }, { "www-authenticate": 'Bearer realm="proofgate"' });
  }
  const authenticated = context;
  const server = createMcpServer(callerApi(() => authenticated));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    // The JSON answer is complete once handleRequest returns: nothing outlives the request.
    void server.close();
  }
}

function jsonRpcError(status: number, code: number, message: string, data?: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message, ...(data ? { data } : {}) }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
