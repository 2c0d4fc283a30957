/**
 * `proofgate mcp` as an MCP client sees it: the official SDK's Client over stdio, spawning the
 * built executable (bin/proofgate.mjs → dist/cli.cjs → dist/mcp.cjs; vitest's global setup built
 * them) in local mode, one server process per agent label.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = path.join(ROOT, "bin", "proofgate.mjs");
vi.setConfig({ testTimeout: 60_000 });

const TOOL_NAMES = [
  "create_session",
  "get_session",
  "create_task",
  "claim_task",
  "verify_task",
  "block_task",
  "complete_task",
  "request_reset",
  "save_success_criteria",
  "update_success_criterion",
  "verify_success_criterion",
  "check_completion",
  "create_goal",
  "set_goal_contract",
  "start_attempt",
  "finish_attempt",
  "record_trust_score",
  "evaluate_goal",
  "log_interaction",
  "save_reasoning",
];
const PASSED = { verdict: "PASSED", checks: [{ name: "unit tests", passed: true }] };

let dir: string;
let db: string;
const clients: Client[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-mcp-"));
  db = path.join(dir, "ledger.db");
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An MCP client connected to its own `proofgate mcp` process acting as `agentId`. */
async function agent(agentId: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  const args = [BIN, "mcp", "--db", db];
  if (!env.PROOFGATE_AGENT_ID) args.push("--agent-id", agentId);
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, cwd: dir, env: { ...(process.env as Record<string, string>), ...env }, stderr: "pipe" }),
  );
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const text = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

function query<T>(sql: string, ...params: unknown[]): T[] {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare(sql).all(...params) as T[];
  } finally {
    conn.close();
  }
}

describe("proofgate mcp over stdio (local mode)", () => {
  it("lists every tool with its API schema and a description that says what a refusal means", async () => {
    const client = await agent("developer_1");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    const claim = tools.find((t) => t.name === "claim_task")!;
    expect(claim.inputSchema).toMatchObject({ type: "object", required: ["sessionId", "key"], additionalProperties: false });
    expect(Object.keys(claim.inputSchema.properties!)).toEqual(["sessionId", "key", "evidence", "proofpack", "failures", "reason", "expectedVersion"]);
    const verify = tools.find((t) => t.name === "verify_task")!;
    expect(verify.inputSchema.properties!.proofpack).toMatchObject({ type: "object", properties: { verdict: { enum: ["PASSED", "BLOCKED"] } } });
    expect([...tools.find((t) => t.name === "create_task")!.inputSchema.required!].sort()).toEqual(["key", "sessionId", "title"]);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(Object.keys(tool.inputSchema.properties ?? {}).length, tool.name).toBeGreaterThan(0);
      expect(tool.description, tool.name).toMatch(/Use it|use it/);
    }
  });

  it("runs the 004 lifecycle: claim as developer_1, the claimant's own verify refused naming the rule, verify by another label, complete", async () => {
    const dev = await agent("developer_1");
    // The label may also come from the environment, as a client's configuration sets it.
    const qa = await agent("qa_1", { PROOFGATE_AGENT_ID: "qa_1" });
    expect(await call(dev, "create_session", { id: "s1", requirements: "Add JWT auth" })).toMatchObject({ structuredContent: { id: "s1", status: "active" } });
    expect(text(await call(dev, "create_task", { sessionId: "s1", key: "t1", title: "Login endpoint" }))).toBe("Created task s1/t1 (pending).");
    const claimed = await call(dev, "claim_task", { sessionId: "s1", key: "t1", evidence: ["src/login.ts"] });
    expect(claimed.isError).toBeFalsy();
    expect(claimed.structuredContent).toMatchObject({ status: "claimed", claimedBy: "developer_1", evidence: ["src/login.ts"] });

    const own = await call(dev, "verify_task", { sessionId: "s1", key: "t1", proofpack: PASSED });
    expect(own.isError).toBe(true);
    expect(text(own)).toBe("task.claimant_cannot_verify: developer_1 claimed this task and cannot verify it: a different verifier must");
    expect(own.structuredContent).toMatchObject({ error: { rule: "task.claimant_cannot_verify" } });
    expect(query("SELECT status FROM tasks WHERE session_id = 's1' AND key = 't1'")).toEqual([{ status: "claimed" }]);

    const early = await call(qa, "complete_task", { sessionId: "s1", key: "t1" });
    expect(early.isError).toBe(true);
    expect(text(early)).toMatch(/^task\.complete_from_claimed: /);

    expect(await call(qa, "verify_task", { sessionId: "s1", key: "t1", proofpack: PASSED })).toMatchObject({
      structuredContent: { status: "verified", verifiedBy: "qa_1" },
    });
    expect(await call(dev, "complete_task", { sessionId: "s1", key: "t1" })).toMatchObject({ structuredContent: { status: "completed" } });
    expect(query("SELECT status, claimed_by, verified_by, verification FROM tasks WHERE session_id = 's1' AND key = 't1'")).toEqual([
      { status: "completed", claimed_by: "developer_1", verified_by: "qa_1", verification: "verified" },
    ]);
    // Each move wrote its transition, acted as the label each server was given.
    expect(query("SELECT move, to_status, actor FROM task_transitions WHERE session_id = 's1' ORDER BY id")).toEqual([
      { move: "create", to_status: "pending", actor: "developer_1" },
      { move: "claim", to_status: "claimed", actor: "developer_1" },
      { move: "verify", to_status: "verified", actor: "qa_1" },
      { move: "complete", to_status: "completed", actor: "developer_1" },
    ]);
  });

  it("drives BLOCKED → request_reset through tools only, and the session's state (tool and resource) shows it waiting for a human", async () => {
    const dev = await agent("developer_2");
    const qa = await agent("qa_2");
    await call(dev, "create_session", { id: "s2" });
    await call(dev, "create_task", { sessionId: "s2", key: "t1", title: "Payments" });
    await call(dev, "claim_task", { sessionId: "s2", key: "t1" });
    const blocked = await call(qa, "block_task", { sessionId: "s2", key: "t1", failures: ["3 integration tests fail"] });
    expect(blocked.structuredContent).toMatchObject({ status: "blocked", blockedBy: "qa_2", failures: ["3 integration tests fail"] });
    expect(text(await call(dev, "complete_task", { sessionId: "s2", key: "t1" }))).toMatch(/^task\.complete_from_blocked: /);
    const requested = await call(dev, "request_reset", { sessionId: "s2", key: "t1", reason: "fixed the fixture" });
    expect(requested.isError).toBeFalsy();
    expect(text(requested)).toBe("Requested a reset of s2/t1; it stays blocked until a lead or admin approves the reset.");
    expect(text(await call(dev, "request_reset", { sessionId: "s2", key: "t1", reason: "again" }))).toMatch(/^task\.reset_already_requested: /);

    const state = await call(dev, "get_session", { id: "s2" });
    expect(state.isError).toBeFalsy();
    const structured = state.structuredContent as {
      tasksByState: Record<string, { key: string; resetRequested: boolean; resetReason: string }[]>;
      taskCounts: Record<string, number>;
      completionGate: { accepted: boolean; reasons: string[] };
    };
    expect(structured.taskCounts).toMatchObject({ blocked: 1, pending: 0, completed: 0 });
    expect(structured.tasksByState.blocked).toEqual([expect.objectContaining({ key: "t1", resetRequested: true, resetReason: "fixed the fixture" })]);
    expect(structured.completionGate.accepted).toBe(false);
    expect(structured.completionGate.reasons.join("\n")).toMatch(/blocked: t1/);
    expect(text(state)).toMatch(/^Session s2 is active; tasks: 1 blocked; completion gate: would reject/);

    const { resources } = await dev.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["proofgate://sessions/s2"]));
    const { resourceTemplates } = await dev.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: "proofgate://sessions/{sessionId}", mimeType: "application/json" })]);
    const read = await dev.readResource({ uri: "proofgate://sessions/s2" });
    const resource = JSON.parse((read.contents[0] as { text: string }).text) as typeof structured;
    expect(resource.tasksByState.blocked).toEqual([expect.objectContaining({ key: "t1", status: "blocked", resetRequested: true })]);
    expect(resource.completionGate).toEqual(structured.completionGate);
    // No approve_reset tool: that move is a human's.
    expect(query("SELECT status, reset_requested FROM tasks WHERE session_id = 's2'")).toEqual([{ status: "blocked", reset_requested: 1 }]);
  });

  it("refuses bad arguments as a tool error naming the field, and writes nothing", async () => {
    const dev = await agent("developer_3");
    await call(dev, "create_session", { id: "s3" });
    const before = query<{ n: number }>("SELECT (SELECT count(*) FROM tasks) + (SELECT count(*) FROM events) AS n")[0]!.n;
    const missing = await call(dev, "create_task", { sessionId: "s3", key: 5 });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/create_task/);
    expect(text(missing)).toMatch(/at key/);
    expect(text(missing)).toMatch(/at title/);
    const unknown = await call(dev, "claim_task", { sessionId: "s3", key: "t1", claimant: "someone_else" });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/claimant/);
    const criteria = await call(dev, "save_success_criteria", { sessionId: "s3", criteria: [{ criterion: "ok" }, { criterion: "   " }] });
    expect(criteria.isError).toBe(true);
    expect(text(criteria)).toMatch(/criteria\.1\.criterion|criteria\[1\]\.criterion/);
    const noSession = await call(dev, "create_task", { sessionId: "nope", key: "t1", title: "x" });
    expect(text(noSession)).toBe('session.not_found: session "nope" does not exist');
    expect(query<{ n: number }>("SELECT (SELECT count(*) FROM tasks) + (SELECT count(*) FROM events) AS n")[0]!.n).toBe(before);
  });

  it("gives check_completion's verdict with every reason as a result, and records the check", async () => {
    const dev = await agent("orchestrator_1");
    await call(dev, "create_session", { id: "s4" });
    await call(dev, "save_success_criteria", { sessionId: "s4", criteria: [{ criterion: "Tests pass" }, { criterion: "Docs updated" }] });
    await call(dev, "create_task", { sessionId: "s4", key: "t1", title: "Work" });
    const rejected = await call(dev, "check_completion", { sessionId: "s4" });
    expect(rejected.isError).toBeFalsy();
    expect(rejected.structuredContent).toMatchObject({ accepted: false, metCount: 0, totalCount: 2 });
    const reasons = (rejected.structuredContent as { reasons: string[] }).reasons;
    expect(reasons.length).toBeGreaterThanOrEqual(2);
    expect(text(rejected)).toBe(`Completion gate REJECTED (0/2 required criteria met):\n${reasons.map((r) => `- ${r}`).join("\n")}`);
    expect(query("SELECT accepted FROM completion_checks WHERE session_id = 's4'")).toEqual([{ accepted: 0 }]);
  });

  it("writes only JSON-RPC to stdout and exits when the client closes stdin", async () => {
    const child = spawn(process.execPath, [BIN, "--db", db, "mcp"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "create_session", arguments: { id: "s5" } } });
    await vi.waitFor(() => expect(stdout.split("\n").filter(Boolean)).toHaveLength(2), { timeout: 20_000 });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_session", arguments: { id: "s5" } } });
    await vi.waitFor(() => expect(stdout.split("\n").filter(Boolean)).toHaveLength(3), { timeout: 20_000 });
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result: Record<string, unknown> });
    expect(lines.map((l) => [l.jsonrpc, l.id])).toEqual([
      ["2.0", 1],
      ["2.0", 2],
      ["2.0", 3],
    ]);
    expect(lines[0]!.result).toMatchObject({ serverInfo: { name: "proofgate" }, capabilities: { tools: {}, resources: {} } });
    expect(lines[2]!.result).toMatchObject({ structuredContent: { session: { id: "s5" } } });
  });
});
