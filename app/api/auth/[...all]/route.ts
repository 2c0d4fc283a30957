import { toNextJsHandler } from "better-auth/next-js";
import { openSharedLedger } from "@/db/client";
import { getAuth } from "@/server/auth/instance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Sign-in, sign-out and session endpoints (better-auth), created lazily so `next build` never opens the database.
export const GET = async (req: Request) => {
  await openSharedLedger();
  return toNextJsHandler(getAuth()).GET(req);
};
export const POST = async (req: Request) => {
  await openSharedLedger();
  return toNextJsHandler(getAuth()).POST(req);
};
