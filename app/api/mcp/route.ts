import { getDb, openSharedLedger } from "@/db/client";
import { handleMcpRequest } from "@/server/mcp/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

async function handler(req: Request) {
  await openSharedLedger();
  return handleMcpRequest(req, getDb);
}

export { handler as GET, handler as POST, handler as DELETE };
