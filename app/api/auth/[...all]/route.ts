import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/server/auth/instance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Sign-in, sign-out and session endpoints (better-auth), created lazily so `next build` never opens the database.
export const GET = (req: Request) => toNextJsHandler(getAuth()).GET(req);
export const POST = (req: Request) => toNextJsHandler(getAuth()).POST(req);
