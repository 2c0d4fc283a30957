import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getDb } from "@/db/client";
import { createRequestContext } from "@/server/api/context";
import { appRouter } from "@/server/api/root";
import { getAuth } from "@/server/auth/instance";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => createRequestContext(req, getDb(), getAuth()),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
    },
  });
}

export { handler as GET, handler as POST };
