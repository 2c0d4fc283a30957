import { openSharedLedger } from "@/db/client";
import { handleAuthRequest } from "@/server/auth/handler";
import { getAuth } from "@/server/auth/instance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Sign-in, sign-out and session endpoints (better-auth), created lazily so `next build` never opens
// the database; bodies over 64 KiB are refused 413 before better-auth parses them.
export const GET = async (req: Request) => {
  await openSharedLedger();
  return handleAuthRequest(req, getAuth);
};
export const POST = async (req: Request) => {
  await openSharedLedger();
  return handleAuthRequest(req, getAuth);
};
