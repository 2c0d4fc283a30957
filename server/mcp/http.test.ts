/**
 * `/api/mcp` as an MCP client sees it: the official SDK's Client over Streamable HTTP against the
 * route's handler (and /api/trpc's, for `proofgate mcp --url`), served by node:http as
 * server/reliability/trpc-server.ts serves the API, so no production build is needed. The
 * production server itself is exercised by e2e/mcp.spec.ts.
 */
// flake-risks random: a unique name, nothing more: any value unlike another run's will do
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Db, openDatabase } from "@/db/client";
import { handleTrpcRequest } from "@/server/api/handler";
import { operatorActor } from "@/server/domain/actors";
import type { Role } from "@/server/domain/actors";
import { createAuth } from "@/server/auth/auth";
import { createToken } from "@/server/services/admin/tokens";
import { handleMcpRequest } from "./http";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
vi.setConfig({ testTimeout: 60_000 });

let dir: string;
let db: Db;
let server: http.Server;
let base: string;
const clients: Client[] = [];

async function toRequest(req: http.IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, { method: req.method, headers, body });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-mcp-http-"));
  db = openDatabase(path.join(dir, "ledger.db"));
  const auth = createAuth(db, { secret: "mcp-http-test-secret-".padEnd(40, "x"), baseURL: "http://127.0.0.1" });
  server = http.createServer((req, res) => {
    void (async () => {
      const request = await toRequest(req);
      const response = req.url?.startsWith("/api/mcp")
        ? await handleMcpRequest(request, () => db)
        : await handleTrpcRequest(
            request,
            () => db,
            () => auth,
          );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      console.error("request failed:", error);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await new Promise((resolve) => server.close(resolve));
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function token(role: Role): Promise<string> {
  return (await createToken({ db, actor: operatorActor("test") }, { name: `mcp-${role}-${Math.random()}`, role })).token;
}

async function httpAgent(bearer: string, agentId?: string): Promise<Client> {
  const client = new Client({ name: "http-test", version: "1.0.0" });
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}`, ...(agentId ? { "x-proofgate-agent": agentId } : {}) };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}
const text = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
const PASSED = { verdict: "PASSED", checks: [{ name: "unit tests", passed: true }] };

function post(headers: Record<string, string>, body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list" }): Promise<Response> {
  return fetch(`${base}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

describe("/api/mcp (Streamable HTTP, stateless)", () => {
  it("answers 401 naming the rule without a token or with a bad one, and never reads cookies", async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="proofgate"');
    expect(await none.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32001, message: "auth.required: sign in or send an API token (Authorization: Bearer …)", data: { rule: "auth.required" } },
    });
    const bogus = await post({ authorization: "Bearer pg_not-a-real-token" });
    expect(bogus.status).toBe(401);
    expect(await bogus.json()).toMatchObject({ error: { message: "auth.token: the API token is unknown, revoked or expired", data: { rule: "auth.token" } } });
    // A signed-in browser's cookie is no credential here: a cross-site form cannot write through it.
    expect((await post({ cookie: "better-auth.session_token=anything", origin: "https://evil.example" })).status).toBe(401);
    const badLabel = await post({ authorization: `Bearer ${await token("agent")}`, "x-proofgate-agent": "two words" });
    expect(badLabel.status).toBe(400);
    expect((await fetch(`${base}/api/mcp`, { headers: { authorization: `Bearer ${await token("agent")}` } })).status).toBe(405);
  });

  it("runs the lifecycle with each role's token: claim by an agent, the claimant's verify refused, verify by a verifier, complete by an orchestrator", async () => {
    const orchestrator = await httpAgent(await token("orchestrator"), "orchestrator_1");
    const developer = await httpAgent(await token("agent"), "developer_1");
    const verifier = await httpAgent(await token("verifier"), "qa_1");
    const { tools } = await developer.listTools();
    expect(tools).toHaveLength(20);
    expect(await call(orchestrator, "create_session", { id: "h1" })).toMatchObject({ structuredContent: { id: "h1" } });
    await call(orchestrator, "create_task", { sessionId: "h1", key: "t1", title: "Login" });
    expect(await call(developer, "claim_task", { sessionId: "h1", key: "t1", evidence: ["src/login.ts"] })).toMatchObject({
      structuredContent: { status: "claimed", claimedBy: "developer_1" },
    });
    // The verifier's token under the claimant's label: refused by label, as on /api/trpc.
    const asClaimant = await httpAgent(await token("verifier"), "developer_1");
    const own = await call(asClaimant, "verify_task", { sessionId: "h1", key: "t1", proofpack: PASSED });
    expect(own.isError).toBe(true);
    expect(text(own)).toBe("task.claimant_cannot_verify: developer_1 claimed this task and cannot verify it: a different verifier must");
    expect(await call(verifier, "verify_task", { sessionId: "h1", key: "t1", proofpack: PASSED })).toMatchObject({
      structuredContent: { status: "verified", verifiedBy: "qa_1" },
    });
    expect(await call(orchestrator, "complete_task", { sessionId: "h1", key: "t1" })).toMatchObject({ structuredContent: { status: "completed" } });
    const events = db.$client.prepare("SELECT type, actor FROM events WHERE session_id = 'h1' AND type LIKE 'task.%' ORDER BY id").all();
    expect(events).toEqual([
      { type: "task.created", actor: "orchestrator_1" },
      { type: "task.claimed", actor: "developer_1" },
      { type: "task.verified", actor: "qa_1" },
      { type: "task.completed", actor: "orchestrator_1" },
    ]);
  });

  it("refuses a viewer's write as a tool error naming the rule (never a 500), while it may read", async () => {
    const viewer = await httpAgent(await token("viewer"), "watcher");
    const refused = await call(viewer, "create_session", { id: "h2" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe("session.create_role: role viewer may not create sessions (allowed: agent, orchestrator, lead, admin)");
    expect(db.$client.prepare("SELECT count(*) AS n FROM sessions WHERE id = 'h2'").get()).toEqual({ n: 0 });
    const orchestrator = await httpAgent(await token("orchestrator"));
    await call(orchestrator, "create_session", { id: "h2r" });
    await call(orchestrator, "create_task", { sessionId: "h2r", key: "t2", title: "Pending" });
    const claim = await call(viewer, "claim_task", { sessionId: "h2r", key: "t2" });
    expect(claim.isError).toBe(true);
    expect(text(claim)).toBe("task.claim_role: role viewer may not claim a task (allowed: agent, admin)");
    expect(await call(viewer, "get_session", { id: "h2r" })).toMatchObject({ structuredContent: { taskCounts: { pending: 1, claimed: 0 } } });
    const read = await viewer.readResource({ uri: "proofgate://sessions/h2r" });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ session: { id: "h2r" }, completionGate: { accepted: false } });
  });

  it("create_session with runtimeSession links the agent runtime session; a malformed one is a tool error naming the field, writing nothing", async () => {
    const orchestrator = await httpAgent(await token("orchestrator"), "orchestrator_1");
    expect(await call(orchestrator, "create_session", { id: "h4", runtimeSession: "claude-code:mcp-runtime-1" })).toMatchObject({
      structuredContent: { id: "h4" },
    });
    expect(
      db.$client
        .prepare(
          "SELECT r.runtime, r.external_id, l.session_id FROM runtime_session_links l JOIN runtime_sessions r ON r.id = l.runtime_session_id WHERE l.session_id = 'h4'",
        )
        .all(),
    ).toEqual([{ runtime: "claude-code", external_id: "mcp-runtime-1", session_id: "h4" }]);
    const bad = await call(orchestrator, "create_session", { id: "h5", runtimeSession: "mcp-runtime-1" });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain("must be <runtime>:<session id> with the runtime one of claude-code");
    expect(text(bad)).toMatch(/runtimeSession/);
    expect(db.$client.prepare("SELECT count(*) AS n FROM sessions WHERE id = 'h5'").get()).toEqual({ n: 0 });
  });

  it("serves `proofgate mcp --url … --token …` (remote stdio mode) with the token's role and label", async () => {
    const client = new Client({ name: "remote-stdio-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, "bin", "proofgate.mjs"), "mcp", "--url", base, "--agent-id", "developer_9"],
        env: { ...(process.env as Record<string, string>), PROOFGATE_TOKEN: await token("agent") },
        stderr: "pipe",
      }),
    );
    clients.push(client);
    await call(client, "create_session", { id: "h3" });
    await call(client, "create_task", { sessionId: "h3", key: "t1", title: "Remote" });
    expect(await call(client, "claim_task", { sessionId: "h3", key: "t1" })).toMatchObject({
      structuredContent: { claimedBy: "developer_9", claimedByPrincipal: expect.stringMatching(/^token:/) },
    });
    const verify = await call(client, "verify_task", { sessionId: "h3", key: "t1", proofpack: PASSED });
    expect(text(verify)).toBe("task.verify_role: role agent may not verify a task (allowed: verifier, lead, admin)");
    const bad = await call(client, "create_task", { sessionId: "h3", key: "t2" });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/at title/);
  });
});
