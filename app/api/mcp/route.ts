import { getDb } from "@/db/client";
import { handleMcpRequest } from "@/server/mcp/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handler(req: Request) {
  return handleMcpRequest(req, getDb);
}

export { handler as GET, handler as POST, handler as DELETE };
