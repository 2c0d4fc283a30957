import { getDb, openSharedLedger } from "@/db/client";
import { handleClaudeCodeHookRequest } from "@/server/api/hooks";
import { getAuth } from "@/server/auth/instance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(req: Request) {
  await openSharedLedger();
  return handleClaudeCodeHookRequest(req, getDb, getAuth);
}
