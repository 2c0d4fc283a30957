import type { Auth } from "./auth";

/**
 * Largest body accepted on /api/auth/* (64 KiB): a sign-in or sign-up is a few hundred bytes, and
 * better-call reads `request.json()` with no limit of its own.
 */
export const MAX_AUTH_BODY_BYTES = 64 * 1024;

/** The better-auth endpoints (app/api/auth/[...all]/route.ts): a body over the limit is refused 413 before anything parses it. */
export async function handleAuthRequest(req: Request, auth: () => Auth): Promise<Response> {
  const limited = await withAuthBodyLimit(req, MAX_AUTH_BODY_BYTES);
  return limited instanceof Response ? limited : auth().handler(limited);
}

/**
 * The request with its body read into memory, or a 413 when it holds more than `max` bytes: by
 * Content-Length before reading, and by the bytes actually streamed (a chunked body, or one that
 * lies about its length) while reading, stopping at the first byte over.
 */
export async function withAuthBodyLimit(req: Request, max: number): Promise<Request | Response> {
  if (!req.body) return req;
  const length = req.headers.get("content-length");
  if (length !== null && (!/^\d{1,16}$/.test(length) || Number(length) > max)) {
    await req.body.cancel().catch(() => undefined);
    return tooLarge(max);
  }
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return tooLarge(max);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  const headers = new Headers(req.headers);
  headers.delete("transfer-encoding");
  headers.set("content-length", String(size));
  return new Request(req.url, { method: req.method, headers, body, signal: req.signal });
}

function tooLarge(max: number): Response {
  return Response.json({ code: "PAYLOAD_TOO_LARGE", message: `request body: must be at most ${max} bytes` }, { status: 413 });
}
