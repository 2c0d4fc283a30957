/**
 * The remote CLI's HTTP client: just what tRPC's httpLink and the SSE reader use, over node:http.
 * Node's global fetch loads and compiles its undici bundle on first use, which costs a remote call
 * more CPU than the rest of its start-up together; this does not.
 */
import http from "node:http";
import type https from "node:https";
import { createRequire } from "node:module";

export interface HttpResponse {
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  /** The body as it arrives, chunk by chunk (read it once: with this, `text` or `json`). */
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export interface HttpRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | null;
  signal?: AbortSignal | null;
}

export type HttpRequest = (url: string, init?: HttpRequestInit) => Promise<HttpResponse>;

/** A request with fetch's contract where it matters: rejects on network errors and aborts, resolves on any HTTP status. */
export const request: HttpRequest = (url, init = {}) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    if (target.protocol !== "http:" && target.protocol !== "https:") return reject(new TypeError(`unsupported protocol ${target.protocol} in ${url}`));
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(abortError());
    // https (and its TLS stack) only when a URL asks for it.
    const transport: typeof http | typeof https = target.protocol === "https:" ? createRequire(import.meta.url)("node:https") : http;
    const body = init.body ?? undefined;
    const req = transport.request(target, {
      method: init.method ?? "GET",
      headers: { ...init.headers, ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) },
      agent: false,
    });
    let response: http.IncomingMessage | undefined;
    // As fetch: an abort rejects the request, or errors the body being read, with an AbortError.
    const onAbort = () => {
      const error = abortError();
      response?.destroy(error);
      req.destroy(error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    req.on("response", (res) => {
      response = res;
      res.on("close", () => signal?.removeEventListener("abort", onAbort));
      const text = async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString("utf8");
      };
      const status = res.statusCode ?? 0;
      resolve({
        ok: status >= 200 && status < 300,
        status,
        statusText: res.statusMessage ?? "",
        headers: {
          get: (name) => {
            const value = res.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
          },
        },
        body: res,
        text,
        json: async () => JSON.parse(await text()) as unknown,
      });
    });
    req.end(body);
  });

function abortError(): Error {
  return Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
}
