/**
 * A Proofgate API server for the reliability tests, in a process of its own: the tRPC endpoint
 * exactly as app/api/trpc/[trpc]/route.ts serves it (same handler, context and error log), on
 * node:http instead of Next.js, so a test needs no production build.
 *
 *   node --import tsx test/support/trpc-server.ts <db file | postgres:// url>   → prints "listening <port>"
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { openLedger } from "@/db/client";
import { createRequestContext } from "@/server/api/context";
import { appRouter } from "@/server/api/root";
import { createAuth } from "@/server/auth/auth";

const target = process.argv[2];
if (!target) throw new Error("usage: trpc-server.ts <db file | postgres:// url>");
// A SQLite file or a PostgreSQL database, opened as `proofgate serve` opens it (migrated already by the test).
const db = await openLedger(target, { migrate: false });
const auth = createAuth(db, { secret: "reliability-test-secret-".padEnd(40, "x"), baseURL: "http://127.0.0.1" });

async function toRequest(req: http.IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, { method: req.method, headers, body });
}

const server = http.createServer((req, res) => {
  void (async () => {
    const request = await toRequest(req);
    const response = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: request,
      router: appRouter,
      createContext: () => createRequestContext(request, db, auth),
      onError: ({ error, path }) => {
        if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
      },
    });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  })().catch((error: unknown) => {
    console.error("request failed:", error);
    res.writeHead(500).end();
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
