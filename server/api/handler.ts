import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Db } from "@/db/client";
import type { Auth } from "@/server/auth/auth";
import { createRequestContext } from "./context";
import { appRouter } from "./root";

/**
 * Largest request body accepted (16 MiB): the biggest legitimate call, a `log.batch` or
 * `attempt.toolCalls` near its own limits (1,000 rows; 10 million characters), fits; a larger
 * body is refused PAYLOAD_TOO_LARGE (413) as soon as it passes the limit, before it is parsed.
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The tRPC endpoint (`/api/trpc`), as app/api/trpc/[trpc]/route.ts serves it. */
export function handleTrpcRequest(req: Request, db: () => Db, auth: () => Auth): Promise<Response> {
  const limited = withBodyLimit(req, MAX_BODY_BYTES);
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: limited,
    router: appRouter,
    createContext: () => createRequestContext(limited, db(), auth()),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
    },
  });
}

/**
 * The same request, whose body stream fails with PAYLOAD_TOO_LARGE once more than `max` bytes were
 * read. A body that declares its length (Content-Length, no Transfer-Encoding) within the limit is
 * passed as it is: HTTP's framing delivers exactly that many bytes (Node's parser reads no more),
 * and re-streaming every body through a counter cost ~0.2 ms a request, as much as a task move's
 * own transaction. Only a body without a declared length is counted as it streams.
 */
export function withBodyLimit(req: Request, max: number): Request {
  if (!req.body) return req;
  const tooLarge = () => new TRPCError({ code: "PAYLOAD_TOO_LARGE", message: `request body: must be at most ${max} bytes` });
  const length = req.headers.get("content-length");
  const declared = length !== null && /^\d{1,16}$/.test(length) ? Number(length) : Number.NaN;
  if (declared <= max && !req.headers.has("transfer-encoding")) return req;
  let size = 0;
  const body = req.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (Number.isFinite(declared) && declared > max) controller.error(tooLarge());
      },
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > max) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Request(req.url, { method: req.method, headers: req.headers, body, signal: req.signal, duplex: "half" } as RequestInit);
}
