import { getDb, openSharedLedger } from "@/db/client";
import { handleTrpcRequest } from "@/server/api/handler";
import { getAuth } from "@/server/auth/instance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

async function handler(req: Request) {
  await openSharedLedger();
  return handleTrpcRequest(req, getDb, getAuth);
}

export { handler as GET, handler as POST };
