/**
 * The agents' endpoints answered by `proofgate serve` itself, before Next's router: `/api/trpc/*`,
 * `/api/mcp` and `/api/hooks/claude-code`. Each is the same fetch-style handler the Next route
 * (app/api/…/route.ts) calls — one function per endpoint, so authentication, CSRF rules, body
 * limits and error shapes are the same on both paths — behind a Node bridge like tRPC's node
 * adapter (which converts the request and calls the same `resolveResponse`), except that a body
 * the handler stops reading (over its size limit) is discarded rather than the socket destroyed,
 * so the client still reads the 413.
 * Everything else (pages, /api/auth, /api/activity/csv, static files) goes to Next.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createURL } from "@trpc/server/adapters/node-http";
import type { Db } from "@/db/client";
import { handleTrpcRequest } from "@/server/api/handler";
import { handleClaudeCodeHookRequest } from "@/server/api/hooks";
import type { Auth } from "@/server/auth/auth";
import { handleMcpRequest } from "@/server/mcp/http";

type FetchHandler = (req: Request) => Promise<Response>;

/** The process's database and better-auth instance (getDb/getAuth in the server; a test's own in tests). */
export interface ApiDeps {
  db: () => Db;
  auth: () => Auth;
}

/**
 * The Node request listener for the agents' endpoints: answers the request and returns true, or
 * returns false (having touched nothing) for a path Next answers.
 */
export function nodeApiHandler(deps: ApiDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const handler = apiRouteFor(req.url ?? "/", deps);
    if (!handler) return false;
    void serveWithFetchHandler(req, res, handler);
    return true;
  };
}

/** The fetch handler for a request's path, or null when Next answers it. Paths as Next matches them (one trailing slash is the same route). */
export function apiRouteFor(url: string, { db: getDb, auth: getAuth }: ApiDeps): FetchHandler | null {
  const q = url.indexOf("?");
  const pathname = (q === -1 ? url : url.slice(0, q)).replace(/(.)\/$/, "$1");
  // app/api/trpc/[trpc]: one segment after /api/trpc (a batch is "a,b,c" in that one segment).
  if (pathname.startsWith("/api/trpc/") && pathname.indexOf("/", 10) === -1 && pathname.length > 10) return (req) => handleTrpcRequest(req, getDb, getAuth);
  if (pathname === "/api/mcp") return (req) => handleMcpRequest(req, getDb);
  if (pathname === "/api/hooks/claude-code")
    return (req) => (req.method === "POST" ? handleClaudeCodeHookRequest(req, getDb, getAuth) : methodNotAllowed("POST"));
  return null;
}

/** What Next answers a route handler's missing method with. */
function methodNotAllowed(allow: string): Promise<Response> {
  return Promise.resolve(new Response(null, { status: 405, headers: { allow } }));
}

/** Answer a Node request with a fetch handler: the request converted as tRPC's node adapter does, the response streamed back with backpressure. */
export async function serveWithFetchHandler(req: IncomingMessage, res: ServerResponse, handler: FetchHandler): Promise<void> {
  const request = toRequest(req, res);
  let response: Response;
  try {
    response = await handler(request);
  } catch (error) {
    console.error(`${req.method} ${req.url} failed:`, error);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("internal server error");
    return;
  }
  res.statusCode = response.status;
  res.statusMessage = response.statusText || res.statusMessage;
  for (const [key, value] of response.headers) if (key !== "set-cookie") res.setHeader(key, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (!response.body) {
    res.end();
    return;
  }
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    // An answer, not a stream: read it whole and send it with its length in one write (headers and
    // body together), rather than chunk by chunk through the stream machinery.
    try {
      const body = Buffer.from(await response.arrayBuffer());
      res.setHeader("content-length", body.byteLength);
      res.end(body);
    } catch (error) {
      if (!request.signal.aborted) console.error(`${req.method} ${req.url}: response failed:`, error);
      res.destroy();
    }
    return;
  }
  const reader = response.body.getReader();
  // A client that goes away (an SSE stream closed) ends the response's stream too.
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once("close", cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res);
      if (res.destroyed) break;
    }
  } catch (error) {
    if (!request.signal.aborted) console.error(`${req.method} ${req.url}: response stream failed:`, error);
  } finally {
    res.off("close", cancel);
    res.end();
  }
}

/** Resolves when the response can take more (or is gone). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

/**
 * The Node request as a fetch Request: URL, headers, a signal aborted when the client goes away,
 * and the body as a stream. No size limit here: each handler applies its own (MAX_BODY_BYTES,
 * server/api/handler.ts), as under Next. A body the handler cancels (a 413 before or while reading
 * it) is drained and dropped, and the connection closed after the answer: destroying the socket
 * instead (as tRPC's adapter does) would lose the answer.
 */
function toRequest(req: IncomingMessage, res: ServerResponse): Request {
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableEnded) abort.abort();
  };
  res.once("close", onClose);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (key.startsWith(":") || value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.append(key, value);
  }
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers, signal: abort.signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    let stop = () => undefined as void;
    init.body = new ReadableStream<Uint8Array>({
      start(controller) {
        const onData = (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) req.pause();
        };
        const onEnd = () => {
          stop();
          controller.close();
        };
        const onError = (error: Error) => {
          stop();
          controller.error(error);
        };
        stop = () => {
          req.off("data", onData);
          req.off("end", onEnd);
          req.off("error", onError);
        };
        req.on("data", onData);
        req.on("end", onEnd);
        req.on("error", onError);
      },
      pull() {
        req.resume();
      },
      cancel() {
        stop();
        res.shouldKeepAlive = false;
        req.resume();
      },
    });
    init.duplex = "half";
  }
  return new Request(createURL(req), init);
}
