import { getDb } from "@/db/client";
import { handleClaudeCodeHookRequest } from "@/server/api/hooks";
import { getAuth } from "@/server/auth/instance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(req: Request) {
  return handleClaudeCodeHookRequest(req, getDb, getAuth);
}
