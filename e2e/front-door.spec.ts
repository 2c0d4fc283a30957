/**
 * The production server's front door (issue 30, item 6): a request whose `Host` is not this
 * server's — a page elsewhere whose name was pointed at 127.0.0.1 (DNS rebinding) — is refused 421
 * before authentication and before the first-admin setup, on the dashboard, the API and the hooks;
 * the loopback names are answered. Raw node:http, since a browser and fetch() set `Host` themselves.
 * No browser; runs in the desktop project only.
 */
import http from "node:http";
import { expect, test } from "@playwright/test";

test.beforeAll(({}, testInfo) => test.skip(testInfo.project.name !== "desktop", "one server, no screen"));

function send(base: string, path: string, host: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const url = new URL(path, base);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? "GET", headers: { ...init.headers, host } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject).end(init.body);
  });
}

test("a Host that is not this server's is refused 421 on every path, before setup and sign-in; loopback names are answered", async ({}, testInfo) => {
  const base = testInfo.project.use.baseURL!;
  const port = new URL(base).port;
  const rebinding = `evil.example:${port}`;
  const setup = {
    method: "POST",
    headers: { "content-type": "application/json", origin: `http://${rebinding}` },
    body: JSON.stringify({ json: { name: "Mallory", email: "mallory@evil.example", password: "a long enough password" } }),
  };
  for (const [path, init] of [
    ["/", {}],
    ["/sign-in", {}],
    ["/api/trpc/setup.createFirstAdmin", setup],
    ["/api/auth/sign-in/email", { method: "POST", headers: { "content-type": "application/json" }, body: '{"email":"a@b.c","password":"x"}' }],
    ["/api/hooks/claude-code", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
    ["/api/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
  ] as const) {
    const refused = await send(base, path, rebinding, init);
    expect({ path, status: refused.status, body: refused.body }).toEqual({
      path,
      status: 421,
      body: '421 Misdirected Request: this server answers a loopback name (set PROOFGATE_URL to the address people use), not "evil.example"\n',
    });
  }
  const malformed = await send(base, "/", `localhost:${port}@evil.example`);
  expect(malformed).toEqual({ status: 421, body: `421 Misdirected Request: the Host header "localhost:${port}@evil.example" is not a host name\n` });

  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
    const answered = await send(base, "/api/trpc/setup.status", host);
    expect({ host, status: answered.status }).toEqual({ host, status: 200 });
    expect(JSON.parse(answered.body)).toMatchObject({ result: { data: { json: { needsSetup: false } } } });
  }
});
