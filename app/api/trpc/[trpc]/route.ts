import { getDb } from "@/db/client";
import { handleTrpcRequest } from "@/server/api/handler";
import { getAuth } from "@/server/auth/instance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handler(req: Request) {
  return handleTrpcRequest(req, getDb, getAuth);
}

export { handler as GET, handler as POST };
