/**
 * `/api/mcp` on the production server (playwright.config.ts's webServer): the official MCP SDK's
 * Client over Streamable HTTP with API tokens made by the operator, as an agent's runtime would
 * connect; and, in the browser, an MCP write showing on the open session page without a reload.
 * `test` comes from @playwright/test (no seeded fixtures), and the spec runs in the desktop project only.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { E2E_DB } from "../playwright.config";
import { type IssuedToken, proofgate, rows, uniqueId } from "./cli-helpers";

const PORT = Number(process.env.PROOFGATE_E2E_PORT);
const MCP_URL = `http://127.0.0.1:${PORT}/api/mcp`;
const PASSED = { verdict: "PASSED", checks: [{ name: "unit tests", passed: true }] };

const clients: Client[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(({}, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "the protocol is the same on every screen: runs once");
});
test.afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

/** A token made by the machine's operator (local mode on the server's own database file). */
async function token(role: string): Promise<string> {
  const run = await proofgate(["--db", E2E_DB, "--json", "token", "create", "--name", uniqueId(`e2e-mcp-${role}`), "--role", role]);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as IssuedToken).token;
}

async function connect(role: string, agentId: string): Promise<Client> {
  const client = new Client({ name: "e2e-mcp", version: "1.0.0" });
  const headers = { authorization: `Bearer ${await token(role)}`, "x-proofgate-agent": agentId };
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}
const text = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

test("without a token /api/mcp answers 401 naming the rule; a bad token too", async ({ request }) => {
  const body = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  const headers = { accept: "application/json, text/event-stream" };
  const none = await request.post(MCP_URL, { data: body, headers });
  expect(none.status()).toBe(401);
  expect(await none.json()).toMatchObject({
    error: { message: "auth.required: sign in or send an API token (Authorization: Bearer …)", data: { rule: "auth.required" } },
  });
  const bogus = await request.post(MCP_URL, { data: body, headers: { ...headers, authorization: "Bearer pg_not-a-real-token" } });
  expect(bogus.status()).toBe(401);
  expect(await bogus.json()).toMatchObject({ error: { data: { rule: "auth.token" } } });
});

test("an agent's lifecycle works over MCP: create, claim, verify by another label, complete; tools listed with their schemas", async () => {
  const sessionId = uniqueId("e2e-mcp");
  const orchestrator = await connect("orchestrator", "orchestrator_1");
  const developer = await connect("agent", "developer_1");
  const verifier = await connect("verifier", "qa_1");
  const { tools } = await developer.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["create_session", "claim_task", "verify_task", "complete_task", "check_completion"]));
  expect(tools.find((t) => t.name === "claim_task")!.inputSchema).toMatchObject({ type: "object", required: ["sessionId", "key"] });

  expect(await call(orchestrator, "create_session", { id: sessionId })).toMatchObject({ structuredContent: { id: sessionId, status: "active" } });
  expect((await call(orchestrator, "create_task", { sessionId, key: "t1", title: "Login endpoint" })).isError).toBeFalsy();
  expect(await call(developer, "claim_task", { sessionId, key: "t1", evidence: ["src/login.ts"] })).toMatchObject({
    structuredContent: { status: "claimed", claimedBy: "developer_1" },
  });
  const own = await call(await connect("verifier", "developer_1"), "verify_task", { sessionId, key: "t1", proofpack: PASSED });
  expect(own.isError).toBe(true);
  expect(text(own)).toMatch(/^task\.claimant_cannot_verify: developer_1 claimed this task/);
  expect(await call(verifier, "verify_task", { sessionId, key: "t1", proofpack: PASSED })).toMatchObject({
    structuredContent: { status: "verified", verifiedBy: "qa_1" },
  });
  expect(await call(orchestrator, "complete_task", { sessionId, key: "t1" })).toMatchObject({ structuredContent: { status: "completed" } });
  expect(rows(E2E_DB, "SELECT status, claimed_by, verified_by FROM tasks WHERE session_id = ?", sessionId)).toEqual([
    { status: "completed", claimed_by: "developer_1", verified_by: "qa_1" },
  ]);
});

test("a viewer token's write is a tool error naming the rule, never a 500; nothing is written", async () => {
  const viewer = await connect("viewer", "watcher");
  const sessionId = uniqueId("e2e-mcp-viewer");
  const refused = await call(viewer, "create_session", { id: sessionId });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toBe("session.create_role: role viewer may not create sessions (allowed: agent, orchestrator, lead, admin)");
  expect(rows(E2E_DB, "SELECT id FROM sessions WHERE id = ?", sessionId)).toEqual([]);
});

test("a task claimed through MCP shows as claimed on the open session page within 2 s, without a reload", async ({ page }) => {
  const sessionId = uniqueId("e2e-mcp-live");
  const orchestrator = await connect("orchestrator", "orchestrator_1");
  const developer = await connect("agent", "developer_1");
  await call(orchestrator, "create_session", { id: sessionId });
  await call(orchestrator, "create_task", { sessionId, key: "group_mcp", title: "Live over MCP" });
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByTestId("column-pending").getByTestId("task-group_mcp")).toBeVisible();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  const navigations: string[] = [];
  page.on("framenavigated", (frame) => frame === page.mainFrame() && navigations.push(frame.url()));

  expect((await call(developer, "claim_task", { sessionId, key: "group_mcp", evidence: ["artifacts/mcp.txt"] })).isError).toBeFalsy();
  const claimed = page.getByTestId("column-claimed").getByTestId("task-group_mcp");
  await expect(claimed).toBeVisible({ timeout: 2_000 });
  await expect(claimed).toContainText("developer_1");
  expect(navigations, "the page was not reloaded").toEqual([]);
});
