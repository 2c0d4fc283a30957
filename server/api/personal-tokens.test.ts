/**
 * Personal API tokens over real HTTP requests, through the handlers the routes serve: /api/trpc,
 * /api/mcp and /api/hooks/claude-code on a temp-file database. A person's token acts as the
 * person with their current role; revoked, it is refused 401 like any other token. On both
 * engines (issue 21).
 */
import { sql } from "drizzle-orm";
import { queryRun } from "@/db/query";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { users } from "@/db/schema";
import { type Auth, createAuth } from "@/server/auth/auth";
import { type Actor, operatorActor } from "@/server/domain/actors";
import { handleMcpRequest } from "@/server/mcp/http";
import { sessionStart } from "@/server/services/runtime/test-payloads";
import { BLOCKED, callerFor } from "@/test/support/api-helpers";
import { describeEngines, sharedLedgerFactory } from "@/test/support/engines";
import { rowsOf } from "@/test/support/rows";
import { handleTrpcRequest } from "./handler";
import { handleClaudeCodeHookRequest } from "./hooks";

const ORIGIN = "http://localhost:3000";
const freshLedger = sharedLedgerFactory();
/** The ledger of the engine whose tests are running (each engine's `beforeAll` sets it). */
let db: Db;
let auth: Auth;
let tokens: Record<"viewer" | "lead", { id: number; token: string }>;

interface WireResult {
  status: number;
  data?: unknown;
  error?: { message: string; data: { code: string; httpStatus: number; rule?: string } };
}

async function trpc(procedure: string, input: unknown, token: string, method: "GET" | "POST", extra: Record<string, string> = {}): Promise<WireResult> {
  const encoded = encodeURIComponent(JSON.stringify({ json: input }));
  const req =
    method === "GET"
      ? new Request(`${ORIGIN}/api/trpc/${procedure}?input=${encoded}`, { headers: { authorization: `Bearer ${token}`, ...extra } })
      : new Request(`${ORIGIN}/api/trpc/${procedure}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...extra },
          body: JSON.stringify({ json: input }),
        });
  const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const res = await handleTrpcRequest(
    req,
    () => db,
    () => auth,
  ).finally(() => log.mockRestore());
  const body = (await res.json()) as { result?: { data: { json: unknown } }; error?: { json: WireResult["error"] } };
  return { status: res.status, data: body.result?.data.json, error: body.error?.json };
}

async function mcp(token: string, method: string, params: unknown): Promise<{ status: number; body: { result?: Record<string, unknown>; error?: unknown } }> {
  const res = await handleMcpRequest(
    new Request(`${ORIGIN}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }),
    () => db,
  );
  return { status: res.status, body: (await res.json()) as { result?: Record<string, unknown> } };
}

async function hook(token: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await handleClaudeCodeHookRequest(
    new Request(`${ORIGIN}/api/hooks/claude-code`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    }),
    () => db,
    () => auth,
  );
  return { status: res.status, body: await res.json() };
}

/** A person (as their cookie session would be) makes a personal token in their settings. */
async function personalToken(id: string, role: "viewer" | "lead"): Promise<{ id: number; token: string }> {
  await queryRun(db.insert(users).values({ id, name: id, email: `${id}@example.com`, role }));
  const signedIn: Actor = { principalId: `user:${id}`, principalKind: "user", role, label: `${id}@example.com` };
  return callerFor(db, signedIn).account.createToken({ name: `${id}'s script` });
}

describeEngines("personal tokens", (engine) => {
  beforeAll(async () => {
    ({ db } = await freshLedger(engine));
    auth = createAuth(db, { secret: "x".repeat(32), baseURL: ORIGIN });
    tokens = { viewer: await personalToken("vera", "viewer"), lead: await personalToken("lena", "lead") };
    const setup = callerFor(db, operatorActor("setup"));
    await setup.session.create({ id: "s1" });
    await setup.task.create({ sessionId: "s1", key: "t1", title: "Task t1" });
    const developer = callerFor(db, { principalId: "token:dev", principalKind: "token", role: "agent", label: "developer_1" });
    await developer.task.start({ sessionId: "s1", key: "t1" });
    await developer.task.claim({ sessionId: "s1", key: "t1" });
    const verifier = callerFor(db, { principalId: "token:qa", principalKind: "token", role: "verifier", label: "qa_1" });
    await verifier.task.block({ sessionId: "s1", key: "t1", proofpack: BLOCKED, failures: ["3 tests failing"] });
  });

  describe("a personal token over /api/trpc", () => {
    it("of a viewer reads, and is refused a write with 403 naming the rule", async () => {
      const read = await trpc("session.list", {}, tokens.viewer.token, "GET");
      expect(read.status).toBe(200);
      expect((read.data as { items: { id: string }[] }).items.map((s) => s.id)).toEqual(["s1"]);
      const write = await trpc("session.create", { id: "by-viewer" }, tokens.viewer.token, "POST");
      expect(write.status).toBe(403);
      expect(write.error?.data.rule).toBe("session.create_role");
      expect(write.error?.message).toContain("role viewer may not");
      expect(await rowsOf(db, sql`select id from sessions`)).toEqual([{ id: "s1" }]);
    });

    it("of a lead approves a reset, recorded as the lead through the token", async () => {
      const approved = await trpc("task.approveReset", { sessionId: "s1", key: "t1", reason: "runner fixed" }, tokens.lead.token, "POST");
      expect(approved.status).toBe(200);
      expect(approved.data).toMatchObject({ status: "pending" });
      expect(await rowsOf(db, sql`select actor, principal_id, role, via from events where type = 'task.reset_approved'`)).toEqual([
        { actor: "lena@example.com", principal_id: "user:lena", role: "lead", via: `token:${tokens.lead.id} lena's script` },
      ]);
      // Last used is shown in the owner's list.
      const mine = await trpc("account.tokens", undefined, tokens.lead.token, "GET");
      expect((mine.data as { lastUsedAt: Date | null }[])[0]!.lastUsedAt).not.toBeNull();
    });

    it("is refused an agent label: it acts as its owner", async () => {
      const r = await trpc("session.list", {}, tokens.viewer.token, "GET", { "x-proofgate-agent": "developer_1" });
      expect(r.status).toBe(400);
      expect(r.error?.message).toBe("x-proofgate-agent: a personal API token acts as its owner (vera@example.com); agent labels go with agent tokens");
    });

    it("cannot create another token (only a signed-in person can)", async () => {
      const r = await trpc("account.createToken", { name: "more" }, tokens.lead.token, "POST");
      expect(r.status).toBe(403);
      expect(r.error?.data.rule).toBe("account.token_from_token");
    });
  });

  describe("a personal token on the other ways in", () => {
    it("/api/mcp: a viewer's reads a session and is refused creating one, naming the rule", async () => {
      const read = await mcp(tokens.viewer.token, "tools/call", { name: "get_session", arguments: { id: "s1" } });
      expect(read.status).toBe(200);
      expect(read.body.result).toMatchObject({ structuredContent: { session: { id: "s1" } } });
      const write = await mcp(tokens.viewer.token, "tools/call", { name: "create_session", arguments: { id: "mcp-viewer" } });
      expect(write.body.result).toMatchObject({ isError: true });
      expect(JSON.stringify(write.body.result)).toContain("session.create_role");
    });

    it("/api/hooks/claude-code: a lead's is taken, a viewer's refused by runtime.hook_role", async () => {
      expect(await hook(tokens.lead.token, sessionStart())).toEqual({ status: 200, body: {} });
      expect(await hook(tokens.viewer.token, sessionStart())).toMatchObject({ status: 403, body: { error: { rule: "runtime.hook_role" } } });
    });
  });

  describe("a revoked personal token", () => {
    it("is refused 401 auth.token everywhere", async () => {
      const { id, token } = await personalToken("rhea", "lead");
      expect((await trpc("session.list", {}, token, "GET")).status).toBe(200);
      const revoked = await trpc("account.revokeToken", { id }, token, "POST");
      expect(revoked.status).toBe(200);
      const after = await trpc("session.list", {}, token, "GET");
      expect(after.status).toBe(401);
      expect(after.error?.data.rule).toBe("auth.token");
      expect((await mcp(token, "tools/list", {})).status).toBe(401);
      expect((await hook(token, sessionStart())).status).toBe(401);
    });
  });
});
