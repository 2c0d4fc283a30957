/**
 * The agent's loop: Claude Code's command hook as a whole process (beside `node -e 0` in the same
 * run), the HTTP hook's server time and round trip, and MCP tool calls over stdio and Streamable
 * HTTP. Each sets up its own linked session on the measured database, whose completion gate
 * rejects (a required criterion pending), so a Stop is held on every call as in a real turn.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { handleClaudeCodeHookRequest } from "@/server/api/hooks";
import { createCaller } from "@/server/api/root";
import { createAuth } from "@/server/auth/auth";
import { operatorActor } from "@/server/domain/actors";
import { handleClaudeCodeHook } from "@/server/services/runtime/hook";
import type { BenchContext } from "../lib/context";
import { HttpClient } from "../lib/http";
import { ROOT, ledgerFlags, ledgerFlagsText } from "../lib/proc";
import { now, summarize } from "../lib/stats";

const CLI = path.join(ROOT, "bin", "proofgate.mjs");
const ORCHESTRATOR = { principalId: "operator", principalKind: "operator", role: "admin", label: "orchestrator" } as const;

/** Claude Code's hook input (its hooks reference): the common fields and the event's own. */
function payload(runtimeId: string, event: "PostToolUse" | "Stop", i: number): Record<string, unknown> {
  const common = { session_id: runtimeId, transcript_path: `/tmp/${runtimeId}.jsonl`, cwd: ROOT, permission_mode: "default", hook_event_name: event };
  if (event === "Stop") return { ...common, stop_hook_active: false, last_assistant_message: "All done." };
  return {
    ...common,
    tool_name: "Bash",
    tool_input: { command: `npm test -- --run ${i}`, description: "Run the tests" },
    tool_response: {
      stdout: `Test Files  12 passed (12)\n     Tests  142 passed (142)\n${"ok\n".repeat(200)}`,
      stderr: "",
      interrupted: false,
      isImage: false,
    },
    tool_use_id: `toolu_bench_${i}`,
  };
}

/** A ledger session created inside the runtime session (linked to it), whose gate rejects: one required criterion pending. */
async function linkedSession(ctx: BenchContext, runtimeId: string, sessionId: string): Promise<void> {
  await handleClaudeCodeHook(
    { db: ctx.local, actor: operatorActor("claude") },
    { ...payload(runtimeId, "Stop", 0), hook_event_name: "SessionStart", source: "startup" },
  );
  const caller = createCaller({
    db: ctx.local,
    actor: ORCHESTRATOR,
    via: "internal",
    sameOrigin: true,
    runtimeSession: { runtime: "claude-code", externalId: runtimeId },
  });
  await caller.session.create({ id: sessionId, requirements: "Bench: the agent's loop", mode: "simple" });
  await caller.criteria.save({ sessionId, criteria: [{ criterion: "All tests passing" }] });
}

/** One process, spawn to exit, with `stdin` written to it; refuses a non-zero exit. */
function timed(args: string[], stdin: string | null): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith("PROOFGATE_") || key === "CLAUDE_ENV_FILE") delete env[key];
    const started = now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = now() - started;
      if (code !== 0) reject(new Error(`node ${args.join(" ")} exited ${code}: ${stderr.trim()}`));
      else resolve({ ms, stdout });
    });
    child.stdin.end(stdin ?? "");
  });
}

/**
 * `proofgate hook claude-code --db F` as Claude Code runs it on every tool call: a PostToolUse
 * (recorded in the linked session's history) and a Stop whose gate rejects (held, answered with a
 * block), interleaved with `node -e 0` so all three see the same load.
 */
export async function measureHookCommand(ctx: BenchContext): Promise<void> {
  const runtimeId = `bench-hook-cmd-${Date.now()}`;
  await linkedSession(ctx, runtimeId, `bench_hook_cmd_${Date.now()}`);
  const hookArgs = [CLI, "hook", "claude-code", ...ledgerFlags(ctx.db), "--agent-id", "claude"];
  const bare: number[] = [];
  const post: number[] = [];
  const stop: number[] = [];
  const reps = ctx.reps(20, 6);
  for (let i = 0; i <= reps; i++) {
    const b = await timed(["-e", "0"], null);
    const p = await timed(hookArgs, JSON.stringify(payload(runtimeId, "PostToolUse", i)));
    const s = await timed(hookArgs, JSON.stringify(payload(runtimeId, "Stop", i)));
    if (!s.stdout.includes('"decision":"block"')) throw new Error(`the Stop was not held: ${s.stdout}`);
    // The first call may write V8's code cache for the command.
    if (i === 0) continue;
    bare.push(b.ms);
    post.push(p.ms);
    stop.push(s.ms);
  }
  const baseline = summarize(bare);
  const note = `spawn → exit of \`node bin/proofgate.mjs hook claude-code ${ledgerFlagsText(ctx.db)}\` with the hook's JSON on stdin, interleaved with \`node -e 0\` (median ${baseline.median.toFixed(1)} ms in this run)`;
  ctx.rec.add({
    id: "hook.command.node_baseline",
    measurement: "node -e 0 (baseline for the hook command)",
    unit: "ms",
    summary: baseline,
    target: null,
    notes: ["the same run, interleaved with the hook calls below"],
  });
  ctx.rec.add({
    id: "hook.command.post_tool_use",
    measurement: "Hook command PostToolUse (Bash), whole process",
    unit: "ms",
    summary: summarize(post),
    target: { stat: "median", op: "<=", value: 100 },
    notes: [note, "the tool call recorded in the linked session's history"],
  });
  ctx.rec.add({
    id: "hook.command.stop_held",
    measurement: "Hook command Stop, gate rejects (held), whole process",
    unit: "ms",
    summary: summarize(stop),
    target: { stat: "median", op: "<=", value: 100 },
    notes: [note, "the gate previewed on the linked session, the held stop recorded, a block answered"],
  });
}

/**
 * `POST /api/hooks/claude-code`. Server time, as the API's rows take it: the route's handler called
 * in this process on a connection to the server's database file, from the Request (the token's
 * authentication, reading the body) to the Response's body. Beside it, as a diagnostic, the hook
 * service alone; and the HTTP round trip to the production server (keep-alive).
 */
/** The same as `linkedSession`, over HTTP with the client's token: its SessionStart, then create-session and its criteria inside it. */
async function tokenLinkedSession(client: HttpClient, runtimeId: string, sessionId: string): Promise<void> {
  const json = { "content-type": "application/json" };
  const inRuntime = { ...json, "x-proofgate-runtime-session": runtimeId };
  const calls: [string, unknown, Record<string, string>][] = [
    ["/api/hooks/claude-code", { ...payload(runtimeId, "Stop", 0), hook_event_name: "SessionStart", source: "startup" }, json],
    ["/api/trpc/session.create", { json: { id: sessionId, requirements: "Bench: the agent's loop", mode: "simple" } }, inRuntime],
    ["/api/trpc/criteria.save", { json: { sessionId, criteria: [{ criterion: "All tests passing" }] } }, inRuntime],
  ];
  for (const [route, body, headers] of calls) {
    const res = await client.raw("POST", route, JSON.stringify(body), headers);
    if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${res.body.slice(0, 300)}`);
  }
}

export async function measureHookHttp(ctx: BenchContext): Promise<void> {
  // A runtime session answers only to the principal that started it (issue 30, item 5): the service
  // calls (the local operator) and the HTTP calls (the orchestrator token) each use their own.
  const serviceRuntimeId = `bench-hook-service-${Date.now()}`;
  await linkedSession(ctx, serviceRuntimeId, `bench_hook_service_${Date.now()}`);
  const hook = { db: ctx.local, actor: operatorActor("claude") };
  const runtimeId = `bench-hook-http-${Date.now()}`;
  // Bearer tokens are checked against the tokens table: the signing secret plays no part.
  const auth = createAuth(ctx.local, { secret: "bench-secret-".repeat(4), baseURL: ctx.server.url });
  const headers = { "content-type": "application/json", authorization: `Bearer ${ctx.tokens.orchestrator}`, "x-proofgate-agent": "claude" };
  const handler = async (body: unknown) => {
    const t = now();
    const response = await handleClaudeCodeHookRequest(
      new Request(`${ctx.server.url}/api/hooks/claude-code`, { method: "POST", headers, body: JSON.stringify(body) }),
      () => ctx.local,
      () => auth,
    );
    const text = await response.text();
    const ms = now() - t;
    if (response.status !== 200) throw new Error(`the hook handler answered ${response.status}: ${text.slice(0, 300)}`);
    return { ms, text };
  };
  const client = new HttpClient(ctx.server.url, { token: ctx.tokens.orchestrator, agent: "claude" });
  await tokenLinkedSession(client, runtimeId, `bench_hook_http_${Date.now()}`);
  const samples = {
    handlerPost: [] as number[],
    handlerStop: [] as number[],
    servicePost: [] as number[],
    serviceStop: [] as number[],
    httpPost: [] as number[],
    httpStop: [] as number[],
  };
  const reps = ctx.reps(200, 30);
  try {
    for (let i = 0; i <= reps; i++) {
      const post = payload(runtimeId, "PostToolUse", i);
      const stop = payload(runtimeId, "Stop", i);
      const handlerPost = await handler(post);
      const handlerStop = await handler(stop);
      if (!handlerStop.text.includes('"decision":"block"')) throw new Error(`the Stop was not held by the handler: ${handlerStop.text.slice(0, 300)}`);
      let t = now();
      await handleClaudeCodeHook(hook, { ...post, session_id: serviceRuntimeId });
      const servicePost = now() - t;
      t = now();
      const held = await handleClaudeCodeHook(hook, { ...stop, session_id: serviceRuntimeId });
      const serviceStop = now() - t;
      if (held.decision !== "block") throw new Error("the Stop was not held by the service");
      const httpPost = await client.raw("POST", "/api/hooks/claude-code", JSON.stringify(post), { "content-type": "application/json" });
      const httpStop = await client.raw("POST", "/api/hooks/claude-code", JSON.stringify(stop), { "content-type": "application/json" });
      if (httpPost.status !== 200 || httpStop.status !== 200 || !httpStop.body.includes('"decision":"block"'))
        throw new Error(`HTTP hook answered ${httpPost.status} / ${httpStop.status}: ${httpStop.body.slice(0, 300)}`);
      if (i === 0) continue; // warm-up
      samples.handlerPost.push(handlerPost.ms);
      samples.handlerStop.push(handlerStop.ms);
      samples.servicePost.push(servicePost);
      samples.serviceStop.push(serviceStop);
      samples.httpPost.push(httpPost.ms);
      samples.httpStop.push(httpStop.ms);
    }
  } finally {
    client.close();
  }
  const target = { stat: "median", op: "<=", value: 15 } as const;
  const server =
    "the route's handler (handleClaudeCodeHookRequest) in this process on a connection to the server's database file: Request → Response body, the orchestrator token's authentication included";
  ctx.rec.add({
    id: "hook.http.server.post_tool_use",
    measurement: "HTTP hook PostToolUse, server time",
    unit: "ms",
    summary: summarize(samples.handlerPost),
    target,
    notes: [server, "the tool call recorded"],
  });
  ctx.rec.add({
    id: "hook.http.server.stop_held",
    measurement: "HTTP hook Stop held, server time",
    unit: "ms",
    summary: summarize(samples.handlerStop),
    target,
    notes: [server, "the gate previewed, the held stop recorded"],
  });
  const diagnostic = "diagnostic: the hook service alone (handleClaudeCodeHook), no request, authentication or JSON";
  ctx.rec.add({
    id: "hook.http.service.post_tool_use",
    measurement: "Hook service PostToolUse, in-process (diagnostic)",
    unit: "ms",
    summary: summarize(samples.servicePost),
    target: null,
    notes: [diagnostic],
  });
  ctx.rec.add({
    id: "hook.http.service.stop_held",
    measurement: "Hook service Stop held, in-process (diagnostic)",
    unit: "ms",
    summary: summarize(samples.serviceStop),
    target: null,
    notes: [diagnostic],
  });
  const trip =
    "POST /api/hooks/claude-code to the production server, orchestrator token, keep-alive; the round trip includes the token's authentication and reading the answer";
  ctx.rec.add({
    id: "hook.http.round_trip.post_tool_use",
    measurement: "HTTP hook PostToolUse, round trip",
    unit: "ms",
    summary: summarize(samples.httpPost),
    target: null,
    notes: [trip],
  });
  ctx.rec.add({
    id: "hook.http.round_trip.stop_held",
    measurement: "HTTP hook Stop held, round trip",
    unit: "ms",
    summary: summarize(samples.httpStop),
    target: null,
    notes: [trip],
  });
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<number> {
  const t = now();
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const ms = now() - t;
  if (result.isError) throw new Error(`${name}: ${result.content.map((c) => (c.type === "text" ? c.text : "")).join(" ")}`);
  return ms;
}

/** Tools called one after another on one connected client: `claim_task` on a fresh pending task each time, then `get_session`. */
async function toolCalls(ctx: BenchContext, client: Client, sessionId: string, reps: number): Promise<{ claim: number[]; get: number[] }> {
  const admin = createCaller({ db: ctx.local, actor: ORCHESTRATOR, via: "internal", sameOrigin: true });
  await admin.session.create({ id: sessionId, requirements: "Bench: MCP", mode: "parallel" });
  await admin.criteria.save({ sessionId, criteria: [{ criterion: "All tests passing" }] });
  for (let i = 0; i <= reps; i++) await admin.task.create({ sessionId, key: `t${i}`, title: `Task ${i}` });
  const claim: number[] = [];
  const get: number[] = [];
  for (let i = 0; i <= reps; i++) {
    const c = await call(client, "claim_task", { sessionId, key: `t${i}`, evidence: [`artifacts/run-${i}.txt`] });
    const g = await call(client, "get_session", { id: sessionId });
    if (i === 0) continue; // warm-up
    claim.push(c);
    get.push(g);
  }
  return { claim, get };
}

/** MCP tool calls, each a request and its answer on a connected client: over stdio (the built `proofgate mcp --db`) and over Streamable HTTP (`/api/mcp`). */
export async function measureMcp(ctx: BenchContext): Promise<void> {
  const reps = ctx.reps(100, 20);
  const stdio = new Client({ name: "proofgate-bench", version: "1.0.0" });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith("PROOFGATE_")) env[key] = value;
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", ...ledgerFlags(ctx.db), "--agent-id", "developer_1"],
      cwd: ROOT,
      env,
      stderr: "ignore",
    }),
  );
  let overStdio: { claim: number[]; get: number[] };
  try {
    overStdio = await toolCalls(ctx, stdio, `bench_mcp_stdio_${Date.now()}`, reps);
  } finally {
    await stdio.close();
  }
  const http = new Client({ name: "proofgate-bench", version: "1.0.0" });
  const headers = { authorization: `Bearer ${ctx.tokens.agent}`, "x-proofgate-agent": "developer_1" };
  await http.connect(new StreamableHTTPClientTransport(new URL(`${ctx.server.url}/api/mcp`), { requestInit: { headers } }));
  let overHttp: { claim: number[]; get: number[] };
  try {
    overHttp = await toolCalls(ctx, http, `bench_mcp_http_${Date.now()}`, reps);
  } finally {
    await http.close();
  }
  const stdioNote = `the SDK's Client spawning \`node bin/proofgate.mjs mcp ${ledgerFlagsText(ctx.db)}\` (local mode), connected once; each call is tools/call → its result`;
  const httpNote =
    "the SDK's Client over Streamable HTTP to /api/mcp on the production server with an agent token; stateless, so each call is its own POST (authentication included)";
  ctx.rec.add({
    id: "mcp.stdio.claim_task",
    measurement: "MCP claim_task over stdio",
    unit: "ms",
    summary: summarize(overStdio.claim),
    target: null,
    notes: [stdioNote, "a fresh pending task each call"],
  });
  ctx.rec.add({
    id: "mcp.stdio.get_session",
    measurement: "MCP get_session over stdio",
    unit: "ms",
    summary: summarize(overStdio.get),
    target: null,
    notes: [stdioNote, `a session of ${reps + 1} tasks`],
  });
  ctx.rec.add({
    id: "mcp.http.claim_task",
    measurement: "MCP claim_task over Streamable HTTP",
    unit: "ms",
    summary: summarize(overHttp.claim),
    target: null,
    notes: [httpNote, "a fresh pending task each call"],
  });
  ctx.rec.add({
    id: "mcp.http.get_session",
    measurement: "MCP get_session over Streamable HTTP",
    unit: "ms",
    summary: summarize(overHttp.get),
    target: null,
    notes: [httpNote, `a session of ${reps + 1} tasks`],
  });
}
