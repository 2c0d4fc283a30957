/**
 * An API test's requests sent over a real socket to `proofgate serve`'s own listener for the
 * agents' endpoints (server/serve/api-routes.ts), instead of to the fetch handler the Next route
 * calls: the same test then proves the same behaviour on both paths. A file opts in by setting
 * PROOFGATE_TEST_VIA=serve before the test module is loaded (vi.hoisted; see http-serve.test.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type ApiDeps, nodeApiHandler } from "@/server/serve/api-routes";

export const viaServe = (): boolean => process.env.PROOFGATE_TEST_VIA === "serve";

export interface SocketTransport {
  /** Send a fetch Request (its URL's host is sent as Host, so origin rules see what the test meant) and return the streamed Response. */
  handle(req: Request): Promise<Response>;
  close(): Promise<void>;
}

export async function socketTransport(deps: ApiDeps): Promise<SocketTransport> {
  const api = nodeApiHandler(deps);
  const server = http.createServer((req, res) => {
    if (!api(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    async handle(req) {
      const url = new URL(req.url);
      const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
      const headers: Record<string, string> = { host: url.host };
      req.headers.forEach((value, key) => (headers[key] = value));
      if (body) headers["content-length"] = String(body.byteLength);
      return new Promise<Response>((resolve, reject) => {
        const out = http.request({ host: "127.0.0.1", port, method: req.method, path: url.pathname + url.search, headers, agent: false }, (res) => {
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              res.on("data", (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
              res.on("end", () => controller.close());
              res.on("error", (error) => controller.error(error));
              res.on("close", () => {
                if (!res.complete) controller.error(new DOMException("aborted", "AbortError"));
              });
            },
            cancel() {
              out.destroy();
            },
          });
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v);
            else if (value !== undefined) responseHeaders.set(key, value);
          }
          resolve(new Response(stream, { status: res.statusCode ?? 0, headers: responseHeaders }));
        });
        out.on("error", reject);
        req.signal.addEventListener("abort", () => out.destroy(), { once: true });
        out.end(body);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
