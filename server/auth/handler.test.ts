/**
 * Issue 30: /api/auth/* bodies are limited to 64 KiB, refused 413 before better-auth parses them,
 * by Content-Length and by the bytes a chunked body streams. Over a socket, as a client sends them,
 * through the same Node-to-fetch conversion `proofgate serve` uses.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Auth, createAuth } from "./auth";
import { MAX_AUTH_BODY_BYTES, handleAuthRequest } from "./handler";
import { serveWithFetchHandler } from "@/server/serve/api-routes";
import { type Fixture, setup, tableCounts } from "@/test/support/api-helpers";

const ORIGIN = "http://localhost:3000";
let f: Fixture;
let auth: Auth;
let server: http.Server;
let port: number;

beforeAll(async () => {
  f = setup();
  auth = createAuth(f.db, { secret: "x".repeat(32), baseURL: ORIGIN });
  server = http.createServer((req, res) => void serveWithFetchHandler(req, res, (request) => handleAuthRequest(request, () => auth)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

interface Answer {
  status: number;
  body: string;
}

/** POST to the sign-in endpoint, with a Content-Length (one write) or chunked (several writes, no length). */
function post(body: string, framing: "content-length" | "chunked"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json", origin: ORIGIN, host: "localhost:3000" };
    if (framing === "content-length") headers["content-length"] = String(Buffer.byteLength(body));
    const req = http.request({ host: "127.0.0.1", port, path: "/api/auth/sign-in/email", method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    // The server may answer and close before a too-large body is all sent; the answer is what counts.
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    if (framing === "chunked") {
      for (let at = 0; at < body.length; at += 8192) req.write(body.slice(at, at + 8192));
      req.end();
    } else req.end(body);
  });
}

const signIn = (padding: number) => JSON.stringify({ email: "nobody@example.com", password: "wrong password", padding: "p".repeat(padding) });

describe("the /api/auth body limit (issue 30)", () => {
  it.each(["content-length", "chunked"] as const)("refuses a body over 64 KiB with 413, naming the limit, and writes nothing (%s)", async (framing) => {
    const before = tableCounts(f.db);
    const answer = await post(signIn(MAX_AUTH_BODY_BYTES), framing);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ code: "PAYLOAD_TOO_LARGE", message: `request body: must be at most ${MAX_AUTH_BODY_BYTES} bytes` });
    expect(tableCounts(f.db)).toEqual(before);
  });

  it.each(["content-length", "chunked"] as const)("passes a body within the limit to better-auth (%s)", async (framing) => {
    const body = signIn(MAX_AUTH_BODY_BYTES - 200);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_AUTH_BODY_BYTES);
    const answer = await post(body, framing);
    // Parsed and answered by better-auth: an unknown user's wrong password.
    expect(answer.status).toBe(401);
  });
});
