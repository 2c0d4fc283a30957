/**
 * The tRPC endpoint over real HTTP requests: the handler app/api/trpc/[trpc]/route.ts serves,
 * on a temp-file database, with bearer tokens, agent labels, and cookie sessions from better-auth.
 * http-serve.test.ts runs every case again over a socket to `proofgate serve`'s own API listener.
 * On both engines (issue 21).
 */
// flake-risks time: hang guard: the condition itself is awaited; the deadline only turns a hang into a named failure
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { type Auth, createAuth } from "@/server/auth/auth";
import { operatorActor } from "@/server/domain/actors";
import { handleTrpcRequest } from "./handler";
import { PASSED, callerFor, expectForbidden } from "@/test/support/api-helpers";
import { describeEngines, sharedLedgerFactory } from "@/test/support/engines";
import { rowsOf } from "@/test/support/rows";
import { type SocketTransport, socketTransport, viaServe } from "@/test/support/serve-transport";

const ORIGIN = "http://localhost:3000";
const freshLedger = sharedLedgerFactory();
/** The ledger of the engine whose tests are running (each engine's `beforeAll` sets it), and what opens it again. */
let db: Db;
let target: string;
let auth: Auth;
let tokens: Record<string, { id: number; token: string }>;

let transport: SocketTransport | undefined;

function handle(req: Request): Promise<Response> {
  if (transport) return transport.handle(req);
  return handleTrpcRequest(
    req,
    () => db,
    () => auth,
  );
}

interface WireResult {
  status: number;
  data?: unknown;
  error?: { message: string; code: number; data: { code: string; httpStatus: number; rule?: string; field?: string } };
}

async function send(req: Request): Promise<WireResult> {
  // The endpoint logs internal errors; keep that log out of the test output (the status is asserted).
  const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const res = await handle(req).finally(() => log.mockRestore());
  const body = (await res.json()) as { result?: { data: { json: unknown } }; error?: { json: WireResult["error"] } };
  return { status: res.status, data: body.result?.data.json, error: body.error?.json };
}

function headersFor(token: string | null, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...extra };
}

/** GET /api/trpc/<path>?input=<superjson-encoded input>. */
function query(procedure: string, input: unknown, token: string | null, extra: Record<string, string> = {}): Promise<WireResult> {
  const url = `${ORIGIN}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  return send(new Request(url, { method: "GET", headers: headersFor(token, extra) }));
}

/** POST /api/trpc/<path> with a superjson-encoded body. */
function mutate(procedure: string, input: unknown, token: string | null, extra: Record<string, string> = {}): Promise<WireResult> {
  return send(
    new Request(`${ORIGIN}/api/trpc/${procedure}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headersFor(token, extra) },
      body: JSON.stringify({ json: input }),
    }),
  );
}

const tok = (name: string) => tokens[name]!.token;

/** Read SSE messages from a response until `enough` says stop or `ms` pass; then close the stream. */
interface SseMessage {
  event: string | null;
  id: string | null;
  data: unknown;
}

/** Reads until `enough`; the deadline only stops a stream that never gets there (no speed claim). */
async function readSse(res: Response, abort: AbortController, enough: (events: SseMessage[]) => boolean, ms = 20_000): Promise<SseMessage[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseMessage[] = [];
  let buffer = "";
  const deadline = Date.now() + ms;
  try {
    while (!enough(events) && Date.now() < deadline) {
      // flake-risk: hang guard: the condition itself is awaited; the deadline only turns a hang into a named failure
      const chunk = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(1, deadline - Date.now())))]);
      if (chunk === null || chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = message.split("\n");
        const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? null;
        const event = field("event");
        const data = field("data");
        if (data === null || event === "connected" || event === "ping") continue;
        const parsed = JSON.parse(data) as { json?: unknown };
        events.push({ event, id: field("id"), data: parsed.json ?? parsed });
      }
    }
  } finally {
    abort.abort();
    await reader.cancel().catch(() => undefined);
  }
  return events;
}

function subscribe(input: unknown, token: string | null, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const url = `${ORIGIN}/api/trpc/events.stream?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  const req = new Request(url, { headers: { accept: "text/event-stream", ...headersFor(token, headers) }, signal: abort.signal });
  return { abort, response: handle(req) };
}

describeEngines("the tRPC endpoint over HTTP", (engine) => {
  beforeAll(async () => {
    ({ db, target } = await freshLedger(engine));
    tokens = {};
    auth = createAuth(db, { secret: "x".repeat(32), baseURL: ORIGIN });
    const admin = callerFor(db, operatorActor("setup"));
    for (const [name, role] of [
      ["viewer_1", "viewer"],
      ["developer_1", "agent"],
      ["developer_2", "agent"],
      ["verifier_1", "verifier"],
      ["verifier_2", "verifier"],
      ["orchestrator_1", "orchestrator"],
    ] as const) {
      const { id, token } = await admin.admin.createToken({ name, role });
      tokens[name] = { id, token };
    }
    await admin.session.create({ id: "s1" });
    if (viaServe()) transport = await socketTransport({ db: () => db, auth: () => auth });
  });

  afterAll(async () => {
    await transport?.close();
    transport = undefined;
  });

  describe("bearer tokens over HTTP", () => {
    it("answers 401 auth.required without an Authorization header", async () => {
      const r = await query("session.list", {}, null);
      expect(r.status).toBe(401);
      expect(r.error?.data).toMatchObject({ code: "UNAUTHORIZED", rule: "auth.required" });
      expect(r.error?.message).toBe("auth.required: sign in or send an API token (Authorization: Bearer …)");
      const write = await mutate("session.create", { id: "anonymous" }, null);
      expect(write).toMatchObject({ status: 401, error: { data: { code: "UNAUTHORIZED", rule: "auth.required" } } });
    });

    it("answers 401 auth.token for an unknown or garbage bearer token, never falling back to anything", async () => {
      for (const bad of ["garbage", "pg_" + "A".repeat(43), tok("viewer_1") + "x"]) {
        const r = await query("session.list", {}, bad);
        expect(r.status, bad).toBe(401);
        expect(r.error?.data, bad).toMatchObject({ code: "UNAUTHORIZED", rule: "auth.token" });
        expect(r.error?.message, bad).toBe("auth.token: the API token is unknown, revoked or expired");
      }
      // "Bearer " with nothing after it, and another scheme, are no token at all.
      for (const authorization of ["Bearer ", "Basic dXNlcjpwYXNz"]) {
        const r = await send(
          new Request(`${ORIGIN}/api/trpc/session.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers: { authorization } }),
        );
        expect(r.status, authorization).toBe(401);
        expect(r.error?.data.rule, authorization).toBe("auth.required");
      }
    });

    it("lets a viewer token read but not write (403 naming the rule)", async () => {
      const read = await query("session.list", {}, tok("viewer_1"));
      expect(read.status).toBe(200);
      expect((read.data as { items: { id: string }[] }).items.map((s) => s.id)).toContain("s1");
      const get = await query("session.get", { id: "s1" }, tok("viewer_1"));
      expect(get.status).toBe(200);
      expect(get.data).toMatchObject({ id: "s1", status: "active" });
      const before = await rowsOf(db, sql`select count(*) as n from sessions`);
      const write = await mutate("session.create", { id: "viewer_session" }, tok("viewer_1"));
      expect(write.status).toBe(403);
      expect(write.error?.data).toMatchObject({ code: "FORBIDDEN", rule: "session.create_role" });
      expect(await rowsOf(db, sql`select count(*) as n from sessions`)).toEqual(before);
    });

    it("answers 404 with the rule for an unknown id", async () => {
      const r = await query("session.get", { id: "nope" }, tok("viewer_1"));
      expect(r.status).toBe(404);
      expect(r.error?.data).toMatchObject({ code: "NOT_FOUND", rule: "session.not_found" });
    });

    it("refuses an agent token verifying (403), and a verifier token verifying its own claim (403), but lets another verifier verify", async () => {
      expect((await mutate("task.create", { sessionId: "s1", key: "h1", title: "http task" }, tok("orchestrator_1"))).status).toBe(200);
      // verifier_1's agent label makes the claim (a verifier token cannot claim: that is an agent's move).
      const claim = await mutate("task.claim", { sessionId: "s1", key: "h1", evidence: ["out.txt"] }, tok("developer_1"), {
        "x-proofgate-agent": "verifier_1",
      });
      expect(claim.status).toBe(200);
      expect(claim.data).toMatchObject({ status: "claimed", claimedBy: "verifier_1", claimedByPrincipal: `token:${tokens.developer_1!.id}` });

      const byAgent = await mutate("task.verify", { sessionId: "s1", key: "h1", proofpack: PASSED }, tok("developer_2"));
      expect(byAgent.status).toBe(403);
      expect(byAgent.error?.data.rule).toBe("task.verify_role");

      const ownClaim = await mutate("task.verify", { sessionId: "s1", key: "h1", proofpack: PASSED }, tok("verifier_1"));
      expect(ownClaim.status).toBe(403);
      expect(ownClaim.error?.data.rule).toBe("task.claimant_cannot_verify");

      const ownByVerifierClaim = await mutate("task.claim", { sessionId: "s1", key: "h1" }, tok("verifier_1"));
      expect(ownByVerifierClaim.status).toBe(403);

      const other = await mutate("task.verify", { sessionId: "s1", key: "h1", proofpack: PASSED }, tok("verifier_2"));
      expect(other.status).toBe(200);
      expect(other.data).toMatchObject({ status: "verified", verifiedBy: "verifier_2", verifiedByPrincipal: `token:${tokens.verifier_2!.id}` });
    });

    it("sends the completion gate's reasons with a refused session completion", async () => {
      await callerFor(db, operatorActor("setup")).session.create({ id: "gate" });
      const r = await mutate("session.updateStatus", { sessionId: "gate", status: "completed" }, tok("orchestrator_1"));
      expect(r.status).toBe(403);
      expect(r.error?.data).toMatchObject({
        code: "FORBIDDEN",
        rule: "completion.rejected",
        reasons: [expect.stringContaining("No required success criteria")],
      });
    });

    it("stops accepting a token once it is revoked", async () => {
      const admin = callerFor(db, operatorActor("setup"));
      const { id, token } = await admin.admin.createToken({ name: "short_lived", role: "viewer" });
      expect((await query("session.list", {}, token)).status).toBe(200);
      await admin.admin.revokeToken({ id });
      const r = await query("session.list", {}, token);
      expect(r.status).toBe(401);
      expect(r.error?.data).toMatchObject({ code: "UNAUTHORIZED", rule: "auth.token" });
      expect(r.error?.message).toContain("unknown, revoked or expired");
      const write = await mutate("log.tokens", { sessionId: "s1", agentType: "developer", tokens: 1 }, token);
      expect(write).toMatchObject({ status: 401, error: { data: { rule: "auth.token" } } });
    });

    it("records the X-Proofgate-Agent label (and the token principal) in the events and rows it writes", async () => {
      await mutate("task.create", { sessionId: "s1", key: "h2", title: "labelled" }, tok("orchestrator_1"));
      const r = await mutate("task.claim", { sessionId: "s1", key: "h2" }, tok("developer_1"), { "x-proofgate-agent": "developer_7" });
      expect(r.status).toBe(200);
      const [event] = await rowsOf(db, sql`select type, actor, principal_id, role from events where type = 'task.claimed' order by id desc limit 1`);
      expect(event).toEqual({ type: "task.claimed", actor: "developer_7", principal_id: `token:${tokens.developer_1!.id}`, role: "agent" });
      expect(await rowsOf(db, sql`select claimed_by from tasks where key = 'h2'`)).toEqual([{ claimed_by: "developer_7" }]);
      // Without the header the token's name is the label.
      await mutate("task.create", { sessionId: "s1", key: "h3", title: "unlabelled" }, tok("orchestrator_1"));
      const [created] = await rowsOf(db, sql`select actor from events where type = 'task.created' order by id desc limit 1`);
      expect(created).toEqual({ actor: "orchestrator_1" });
    });

    it("refuses an agent label that is an email (a person's name in the history) or has other characters, writing nothing", async () => {
      await mutate("task.create", { sessionId: "s1", key: "h4", title: "labelled" }, tok("orchestrator_1"));
      for (const label of ["lead@example.com", "dev 1", "dev/1", "x".repeat(201)]) {
        const r = await mutate("task.claim", { sessionId: "s1", key: "h4" }, tok("developer_1"), { "x-proofgate-agent": label });
        expect({ label, status: r.status, message: r.error?.message }).toEqual({
          label,
          status: 400,
          message: "x-proofgate-agent: must be 1–200 letters, digits or . _ : + - (no @: an email names a person, and an agent never acts as one)",
        });
      }
      expect(await rowsOf(db, sql`select status, claimed_by from tasks where session_id = 's1' and key = 'h4'`)).toEqual([
        { status: "pending", claimed_by: null },
      ]);
      const ok = await mutate("task.claim", { sessionId: "s1", key: "h4" }, tok("developer_1"), { "x-proofgate-agent": "developer_1.v2:run-3+a" });
      expect(ok.status).toBe(200);
    });

    it("accepts a bearer write even with a foreign Origin: tokens are not sent by browsers on their own", async () => {
      const r = await mutate("log.tokens", { sessionId: "s1", agentType: "developer", tokens: 7 }, tok("developer_1"), { origin: "https://evil.example" });
      expect(r.status).toBe(200);
    });

    it("answers 400 naming the field for bad input", async () => {
      const r = await mutate("session.create", { id: "has spaces!" }, tok("orchestrator_1"));
      expect(r.status).toBe(400);
      expect(r.error?.message).toContain("id:");
    });
  });

  describe("events.stream over SSE", () => {
    it("resumes after Last-Event-ID with each event's id, and delivers an event another process writes", async () => {
      const lastSeen = (await rowsOf<{ id: number }>(db, sql`select max(id) as id from events`))[0]!.id;
      await mutate("task.create", { sessionId: "s1", key: "sse1", title: "before reconnect" }, tok("orchestrator_1"));
      const { abort, response } = subscribe({ sessionId: "s1" }, tok("viewer_1"), { "last-event-id": String(lastSeen) });
      const res = await response;
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      // Another process (a CLI in local mode) writes through its own handle on the same ledger.
      const cli = await openLedger(target);
      try {
        // flake-risk: spaces a write after the stream opened; the stream resumes from Last-Event-ID, so either order yields both events
        setTimeout(() => void callerFor(cli, operatorActor("developer_9")).task.create({ sessionId: "s1", key: "sse2", title: "from the CLI" }), 200);
        const events = await readSse(res, abort, (e) => e.length >= 2);
        expect(events.every((e) => e.event === null)).toBe(true);
        expect(events.map((e) => (e.data as { type: string; data: { key: string } }).data.key)).toEqual(["sse1", "sse2"]);
        expect(events.map((e) => Number(e.id))).toEqual(
          (await rowsOf<{ id: number }>(db, sql`select id from events where id > ${lastSeen} and session_id = 's1' order by id`)).map((r) => r.id),
        );
        expect(events[1]!.data).toMatchObject({ type: "task.created", actor: "developer_9", principalId: "operator" });
      } finally {
        await closeLedger(cli);
      }
    });

    it("refuses a subscriber without credentials, or with a revoked token, with an UNAUTHORIZED error event naming the rule and no data", async () => {
      const admin = callerFor(db, operatorActor("setup"));
      const { id, token } = await admin.admin.createToken({ name: "revoked_watcher", role: "viewer" });
      await admin.admin.revokeToken({ id });
      for (const [credential, rule] of [
        [null, "auth.required"],
        [token, "auth.token"],
      ] as const) {
        const { abort, response } = subscribe({ lastEventId: 0 }, credential);
        const events = await readSse(await response, abort, (e) => e.length > 0);
        expect(events, rule).toHaveLength(1);
        expect(events[0]!.event).toBe("serialized-error");
        expect(events[0]!.data).toMatchObject({ data: { code: "UNAUTHORIZED", rule } });
      }
    });
  });

  describe("cookies and CSRF", () => {
    it("answers 401 to a cookie-less write from a foreign Origin, before any CSRF check", async () => {
      const r = await mutate("session.create", { id: "csrf_attempt" }, null, { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
      expect(r.status).toBe(401);
      expect(r.error?.data.code).toBe("UNAUTHORIZED");
      expect(await rowsOf(db, sql`select count(*) as n from sessions where id = 'csrf_attempt'`)).toEqual([{ n: 0 }]);
    });

    it("refuses a cookie-authenticated cross-site mutation FORBIDDEN csrf but serves its queries", async () => {
      const forged = callerFor(
        db,
        { principalId: "user:u1", principalKind: "user", role: "lead", label: "lead@example.com" },
        { via: "cookie", sameOrigin: false },
      );
      await expectForbidden(forged.session.create({ id: "forged" }), "csrf");
      await expectForbidden(forged.session.setEnforcement({ sessionId: "s1", enforcement: "observe", reason: "forged" }), "csrf");
      expect((await forged.session.get({ id: "s1" })).enforcement).toBe("enforce");
      expect((await forged.session.list({})).items.length).toBeGreaterThan(0);
      const sameSite = callerFor(
        db,
        { principalId: "user:u1", principalKind: "user", role: "lead", label: "lead@example.com" },
        { via: "cookie", sameOrigin: true },
      );
      expect(await sameSite.session.create({ id: "from_own_page" })).toMatchObject({ id: "from_own_page" });
    });

    it("signs a person in with better-auth and honours the CSRF rule on real cookie requests", async () => {
      const admin = callerFor(db, operatorActor("setup"));
      await admin.admin.createUser({ email: "lead@example.com", password: "correct horse battery staple", role: "lead" });
      const signIn = await auth.handler(
        new Request(`${ORIGIN}/api/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: ORIGIN },
          body: JSON.stringify({ email: "lead@example.com", password: "correct horse battery staple" }),
        }),
      );
      expect(signIn.status).toBe(200);
      const cookie = signIn.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      expect(cookie).toContain("proofgate");

      const read = await query("session.get", { id: "s1" }, null, { cookie });
      expect(read.status).toBe(200);
      // A bearer header that does not authenticate never falls back to the cookie.
      expect((await query("session.get", { id: "s1" }, "garbage", { cookie })).status).toBe(401);
      expect((await query("session.get", { id: "s1" }, null, { cookie: "proofgate.session_token=forged.value" })).status).toBe(401);
      const crossSite = await mutate("session.create", { id: "cookie_cross" }, null, { cookie, origin: "https://evil.example", host: "localhost:3000" });
      expect(crossSite.status).toBe(403);
      expect(crossSite.error?.message).toContain("csrf");
      const sameSite = await mutate("session.create", { id: "cookie_same" }, null, { cookie, origin: ORIGIN, host: "localhost:3000" });
      expect(sameSite.status).toBe(200);
      const [event] = await rowsOf(db, sql`select actor, role, principal_id from events where type = 'session.created' and session_id = 'cookie_same'`);
      expect(event).toMatchObject({ actor: "lead@example.com", role: "lead", principal_id: expect.stringMatching(/^user:/) });
    });
  });
});
