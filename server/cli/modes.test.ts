/**
 * What keeps a call's start-up small without drifting from the code it stands in for: the local
 * mode's lazily loaded routers are the API's, the constants repeated so that parsing arguments
 * loads no schema or generator are the originals' values, and the remote mode's node:http client
 * honours fetch's contract where tRPC and the SSE reader rely on it.
 */
// flake-risks port: a port the kernel handed out and closed at once, to show what a client says when nothing listens; nothing here listens on ephemeral ports by chance
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HUMAN_USER_ROLES } from "@/db/schema/auth";
import { AGENT_HEADER as SERVER_AGENT_HEADER } from "@/server/api/context";
import { USER_ROLES } from "@/server/domain/actors";
import { appRouter } from "@/server/api/root";
import { MAX_DEMO_SESSIONS as DEMO_SESSIONS, MAX_SEED as DEMO_SEED } from "@/server/demo/generate";
import { request } from "./http";
import { ROUTERS } from "./local-api";
import { MAX_DEMO_SESSIONS, MAX_SEED } from "./options";
import { AGENT_HEADER } from "./remote-api";

describe("what the CLI repeats to load less", () => {
  it("loads, by namespace, exactly the API's routers", async () => {
    expect(Object.keys(ROUTERS).sort()).toEqual(Object.keys(appRouter._def.record).sort());
    const loaded: string[] = [];
    for (const [namespace, load] of Object.entries(ROUTERS)) loaded.push(...Object.keys((await load())._def.procedures).map((path) => `${namespace}.${path}`));
    expect(loaded.sort()).toEqual(Object.keys(appRouter._def.procedures).sort());
  });

  it("uses the server's agent header, the schema's human roles and the demo generator's limits", () => {
    expect(AGENT_HEADER).toBe(SERVER_AGENT_HEADER);
    expect(USER_ROLES).toEqual(HUMAN_USER_ROLES);
    expect([MAX_DEMO_SESSIONS, MAX_SEED]).toEqual([DEMO_SESSIONS, DEMO_SEED]);
  });
});

describe("the remote mode's HTTP client", () => {
  let server: http.Server;
  let base: string;
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url === "/json") return void res.writeHead(403, "Forbidden", { "content-type": "application/json" }).end(JSON.stringify({ error: "é" }));
        if (req.url === "/stream") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write("data: 1\n\n");
          return; // left open: the caller aborts
        }
        res.writeHead(200, { "x-many": ["a", "b"] }).end(body.toUpperCase());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends the method, headers and body, and reads status, headers and text", async () => {
    const res = await request(`${base}/echo?x=1`, {
      method: "POST",
      headers: { authorization: "Bearer pg_x", "content-type": "application/json" },
      body: '{"a":"ü"}',
    });
    expect({ ok: res.ok, status: res.status, many: res.headers.get("X-Many"), missing: res.headers.get("nope") }).toEqual({
      ok: true,
      status: 200,
      many: "a, b",
      missing: null,
    });
    expect(await res.text()).toBe('{"A":"Ü"}');
    expect(seen.at(-1)).toMatchObject({
      method: "POST",
      url: "/echo?x=1",
      headers: { authorization: "Bearer pg_x", "content-length": "10" },
      body: '{"a":"ü"}',
    });
  });

  it("resolves on an error status with the JSON body, as fetch does", async () => {
    const res = await request(`${base}/json`);
    expect({ ok: res.ok, status: res.status, statusText: res.statusText }).toEqual({ ok: false, status: 403, statusText: "Forbidden" });
    expect(await res.json()).toEqual({ error: "é" });
  });

  it("streams the body and stops when aborted", async () => {
    const abort = new AbortController();
    const res = await request(`${base}/stream`, { signal: abort.signal });
    const chunks = res.body[Symbol.asyncIterator]();
    expect(Buffer.from((await chunks.next()).value!).toString()).toBe("data: 1\n\n");
    abort.abort();
    await expect(chunks.next()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects when nothing listens, when aborted before it starts, and for a protocol it does not speak", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(request(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    const abort = new AbortController();
    abort.abort();
    await expect(request(`${base}/echo`, { signal: abort.signal })).rejects.toMatchObject({ name: "AbortError" });
    await expect(request("ftp://127.0.0.1/")).rejects.toThrow("unsupported protocol ftp:");
  });
});
