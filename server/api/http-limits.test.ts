/**
 * Hostile requests at the HTTP layer: an oversized body, malformed and invalid UTF-8 JSON, nesting
 * deep enough to overflow a recursive parser, superjson metadata that would turn a value into a
 * BigInt or a Map, and lone surrogates written as JSON escapes. Each gets a 4xx naming what is
 * wrong, and nothing is written. Every case runs twice: through the handler the Next.js route
 * serves, and over a socket to `proofgate serve`'s own Node listener for the API
 * (server/serve/api-routes.ts), which agents' calls take.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Db, openDatabase } from "@/db/client";
import { type Auth, createAuth } from "@/server/auth/auth";
import { operatorActor } from "@/server/domain/actors";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { MAX_BODY_BYTES, handleTrpcRequest } from "./handler";
import { nodeApiHandler } from "@/server/serve/api-routes";
import { callerFor, tableCounts } from "@/test/support/api-helpers";

const ORIGIN = "http://localhost:3000";
let dir: string;
let db: Db;
let auth: Auth;
let token: string;
let server: http.Server;
let port: number;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-limits-"));
  db = openDatabase(path.join(dir, "proofgate.db"));
  auth = createAuth(db, { secret: "x".repeat(32), baseURL: ORIGIN });
  const admin = callerFor(db, operatorActor("setup"));
  token = (await admin.admin.createToken({ name: "orchestrator_1", role: "orchestrator" })).token;
  await admin.session.create({ id: "s1" });
  const api = nodeApiHandler({ db: () => db, auth: () => auth });
  server = http.createServer((req, res) => {
    if (!api(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  error?: { message: string; data: { code: string; httpStatus: number; rule?: string } };
}

type Transport = "fetch handler (the Next route)" | "proofgate serve's Node listener, over a socket";
const TRANSPORTS: Transport[] = ["fetch handler (the Next route)", "proofgate serve's Node listener, over a socket"];
let transport: Transport = TRANSPORTS[0]!;

/** POST a raw body to a procedure; return the status and the error as a client would read it. */
async function post(procedure: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Answer> {
  const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    if (transport !== TRANSPORTS[0]) return await postOverSocket(procedure, body as string | Uint8Array | ReadableStream<Uint8Array>, headers);
    const res = await handleTrpcRequest(
      new Request(`${ORIGIN}/api/trpc/${procedure}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
        body,
        duplex: "half",
      } as RequestInit),
      () => db,
      () => auth,
    );
    const json = (await res.json()) as { error?: { json: Answer["error"] } };
    return { status: res.status, error: json.error?.json };
  } finally {
    log.mockRestore();
  }
}

/**
 * The same POST with node:http: a string or bytes with their Content-Length (as fetch sends them),
 * a stream chunked, with no length; a header given overrides.
 */
async function postOverSocket(procedure: string, body: string | Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string>): Promise<Answer> {
  const fixed = typeof body === "string" || body instanceof Uint8Array;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: `/api/trpc/${procedure}`,
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
          ...(fixed ? { "content-length": String(Buffer.byteLength(body)) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const json = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { error?: { json: Answer["error"] } };
          resolve({ status: res.statusCode ?? 0, error: json.error?.json });
        });
      },
    );
    // The server may answer (413) and stop reading before the whole body is written.
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    if (fixed) req.end(body);
    else
      void (async () => {
        for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
        req.end();
      })().catch(reject);
  });
}

/** `post`, proving no row of any table changed. */
async function refused(procedure: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Answer> {
  const before = tableCounts(db);
  const answer = await post(procedure, body, headers);
  expect(tableCounts(db)).toEqual(before);
  return answer;
}

describe.each(TRANSPORTS)("request bodies, through the %s", (via) => {
  beforeAll(() => {
    transport = via;
  });

  it(`refuses a body over ${MAX_BODY_BYTES} bytes with 413 PAYLOAD_TOO_LARGE, whether or not it declares its length`, async () => {
    const content = "x".repeat(MAX_BODY_BYTES);
    const body = JSON.stringify({ json: { sessionId: "s1", agentType: "a", content } });
    const declared = await refused("log.interaction", body);
    expect(declared.status).toBe(413);
    expect(declared.error?.data.code).toBe("PAYLOAD_TOO_LARGE");
    expect(declared.error?.message).toContain("request body: must be at most");
    // A streamed body carries no Content-Length: it is cut off as it passes the limit.
    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1 << 20) controller.enqueue(bytes.subarray(i, i + (1 << 20)));
        controller.close();
      },
    });
    const streamed = await refused("log.interaction", stream);
    expect(streamed.status).toBe(413);
    // A declared length over the limit is refused before any of the body is read.
    const announced = await refused("log.interaction", body, { "content-length": String(Buffer.byteLength(body)) });
    expect(announced.status).toBe(413);
    expect(announced.error?.data.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("takes a body whose declared length is within the limit as HTTP framed it", async () => {
    const body = JSON.stringify({ json: { sessionId: "s1", agentType: "a", content: "declared" } });
    const ok = await post("log.interaction", body, { "content-length": String(Buffer.byteLength(body)) });
    expect(ok.status).toBe(200);
  });

  it("accepts a body just under the limit when the procedure's own limits allow it", async () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ kind: "interaction", agentType: "a", content: `${i} ${"y".repeat(1_000_000)}` }));
    const ok = await post("log.batch", JSON.stringify({ json: { sessionId: "s1", rows } }));
    expect(ok.status).toBe(200);
  });

  it("answers malformed JSON with 400 naming the request body", async () => {
    for (const body of ["{", '{"json": ', "\u0000", "[1,2", '{"json": {"sessionId": "s1",}}']) {
      const r = await refused("session.create", body);
      expect(r.status, body).toBe(400);
      expect(r.error?.data.code, body).toBe("BAD_REQUEST");
      expect(r.error?.message, body).toMatch(/^request body: must be valid JSON \(.+\)$/);
      expect(r.error?.data.rule, body).toBe("input.malformed_json");
    }
  });

  it("stores invalid UTF-8 bytes as U+FFFD (the decoder replaces them), never as broken text", async () => {
    const prefix = new TextEncoder().encode('{"json": {"sessionId": "s1", "agentType": "a", "content": "bad ');
    const suffix = new TextEncoder().encode(' bytes"}}');
    const body = new Uint8Array([...prefix, 0xff, 0xfe, 0xc3, ...suffix]);
    const r = await post("log.interaction", body);
    expect(r.status).toBe(200);
    const [row] = db.$client.prepare("select content from orchestration_logs order by id desc limit 1").all() as { content: string }[];
    expect(row!.content).toBe("bad \uFFFD\uFFFD\uFFFD bytes");
  });

  it("refuses nesting deeper than the limit without overflowing the stack, naming the field", async () => {
    for (const depth of [65, 10_000, 500_000]) {
      const body = `{"json": {"id": "deep", "metadata": {"a": ${"[".repeat(depth)}${"]".repeat(depth)}}}}`;
      const r = await refused("session.create", body);
      expect(r.status, String(depth)).toBe(400);
      expect(r.error?.message, String(depth)).toMatch(/^metadata\.a\[0\]\[0\]…: must not nest more than 64 levels/);
    }
  });

  it("refuses superjson metadata that would make a BigInt, a Map or a Set out of a JSON field", async () => {
    for (const [type, value] of [
      ["bigint", "10"],
      ["map", [["k", 1]]],
      ["set", [1]],
      ["regexp", "/x/"],
    ] as const) {
      const body = JSON.stringify({ json: { id: `sj_${type}`, metadata: { a: value } }, meta: { values: { "metadata.a": [type] } } });
      const r = await refused("session.create", body);
      expect(r.status, type).toBe(400);
      expect(r.error?.message, type).toMatch(/^metadata\.a: must be JSON data/);
    }
  });

  it("refuses lone surrogates and NUL written as JSON escapes, naming the field", async () => {
    for (const [escape, message] of [
      ["\\ud800", "must be valid Unicode"],
      ["x\\udfffy", "must be valid Unicode"],
      ["a\\u0000b", "must not contain NUL characters"],
    ] as const) {
      const r = await refused("log.interaction", `{"json": {"sessionId": "s1", "agentType": "a", "content": "${escape}"}}`);
      expect(r.status, escape).toBe(400);
      expect(r.error?.message, escape).toBe(`content: ${message}${message.includes("Unicode") ? " (no lone surrogate halves)" : ""}`);
    }
    // A surrogate pair (an emoji) is valid text.
    expect((await post("log.interaction", '{"json": {"sessionId": "s1", "agentType": "a", "content": "ok \\ud83d\\ude00"}}')).status).toBe(200);
  });
});
