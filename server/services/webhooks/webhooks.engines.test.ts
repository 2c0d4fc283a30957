/**
 * Notifications end to end in one process: writes through the API fill the outbox in their own
 * transaction, a dispatcher delivers to a real local HTTP receiver, signed as Standard Webhooks
 * (verified with the `standardwebhooks` library), retried while the receiver is down, and
 * creation refuses a bad URL or secret (nothing written) and anyone but an admin.
 */
// flake-risks wait: absence check: room for a repeat or a stray write to show; a slow machine can only make it miss one, never fail
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { WEBHOOK_EVENTS } from "@/server/domain/webhooks";
import { handleClaudeCodeHook } from "@/server/services/runtime/hook";
import { RUNTIME_ID, sessionStart, stop } from "@/server/services/runtime/test-payloads";
import { ACTORS, type Fixture, callerFor, expectBadRequest, expectForbidden, setup } from "@/test/support/api-helpers";
import { WebhookReceiver, waitFor } from "@/test/support/webhook-receiver";
import { createWebhook } from "./create";
import { type Dispatcher, type DispatcherOptions, startDispatcher } from "./dispatcher";
import { describeEngines, ledgerFactory, sharedLedgerFactory } from "@/test/support/engines";
import { columnsHolding, columnsHoldingBytes, rowsLikeSqlite, tableCountsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

const FAST: DispatcherOptions = {
  retry: { baseMs: 100, maxMs: 400, giveUpAfterMs: 60_000 },
  // Longer than any stall of a loaded machine: a delivery timed out here would be sent again (at least once, as it
  // should), and the tests that count deliveries exactly would see the copy. Timeouts are tested with their own.
  timeoutMs: 30_000,
  pollMs: 25,
  leaseMs: 60_000,
  batch: 10,
  baseUrl: "https://proofgate.example.com",
  retention: { keepMs: 30 * 86_400_000, everyMs: 300_000, batch: 500 },
  // The receivers here listen on 127.0.0.1, which the server refuses unless told otherwise.
  allowPrivate: true,
};

/** PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1 for this test: creating a webhook to a receiver on 127.0.0.1 is refused without it. */
const allowPrivateReceivers = () => void vi.stubEnv("PROOFGATE_WEBHOOK_ALLOW_PRIVATE", "1");

/** Only stops a wait that would never end; no claim about speed. */
const HANG_MS = 15_000;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function receiver(port = 0): Promise<WebhookReceiver> {
  const r = await new WebhookReceiver().listen(port);
  cleanup.push(() => r.close());
  return r;
}

function dispatch(db: Db, options: Partial<DispatcherOptions> = {}): Dispatcher {
  const d = startDispatcher(db, { ...FAST, ...options }, () => undefined);
  cleanup.push(() => d.stop());
  return d;
}

const S = { sessionId: "s1" };

const sharedLedger = sharedLedgerFactory();

describeEngines("webhooks", (engine) => {
  // PostgreSQL seals a webhook's signing secret under the instance key from the environment (server/auth/secret.ts).
  beforeEach(() => void vi.stubEnv("BETTER_AUTH_SECRET", "webhooks-test-key-webhooks-test-key-0123456789"));
  afterEach(() => void vi.unstubAllEnvs());

  describe("webhook deliveries", () => {
    beforeEach(allowPrivateReceivers);
    it("delivers each event type once, signed, soon after the write", async () => {
      const f = setup(await freshLedger(engine));
      const r = await receiver();
      const { secret } = await f.as("admin").admin.createWebhook({ url: r.url, events: "all" });
      dispatch(f.db);
      const verifier = new Webhook(secret);

      /** Run a write, then wait for the deliveries it owes: each signed, of the expected types (how soon is the bench's to measure). */
      const expectDelivered = async (write: () => Promise<unknown>, types: string[]) => {
        const before = r.received.length;
        await write();
        await waitFor(async () => r.received.length >= before + types.length, HANG_MS, types.join(", "));
        const got = r.received.slice(before);
        for (const message of got) {
          expect(verifier.verify(message.body, message.headers)).toMatchObject({ type: expect.any(String) });
        }
        expect(got.map((m) => (JSON.parse(m.body) as { type: string }).type)).toEqual(types);
      };

      await f.as("orchestrator").session.create({ id: "s1" });
      await f.as("orchestrator").task.create({ ...S, key: "t1", title: "Task t1" });
      await f.as("developer").task.claim({ ...S, key: "t1" });
      await expectDelivered(() => f.as("verifier").task.block({ ...S, key: "t1", failures: ["tests fail"] }), ["task.blocked"]);
      await expectDelivered(() => f.as("orchestrator").task.requestReset({ ...S, key: "t1", reason: "fixed" }), ["task.reset_requested"]);
      await expectDelivered(() => f.as("lead").task.declineReset({ ...S, key: "t1", reason: "not yet" }), ["task.reset_declined"]);
      await expectDelivered(() => f.as("orchestrator").task.requestReset({ ...S, key: "t1", reason: "fixed now" }), ["task.reset_requested"]);
      await expectDelivered(() => f.as("lead").task.approveReset({ ...S, key: "t1", reason: "ok" }), ["task.reset_approved"]);
      await expectDelivered(() => f.as("orchestrator").completion.check(S), ["completion.rejected"]);

      await f.as("orchestrator").session.create({ id: "s2", enforcement: "observe" });
      await f.as("orchestrator").task.create({ sessionId: "s2", key: "t1", title: "Task t1" });
      await expectDelivered(() => f.as("orchestrator").task.report({ sessionId: "s2", key: "t1", status: "completed" }), ["task.unverified_completion"]);

      const runtime = { runtime: "claude-code" as const, externalId: RUNTIME_ID };
      const agent = { db: f.db, actor: ACTORS.developer };
      await handleClaudeCodeHook(agent, sessionStart("startup"));
      await callerFor(f.db, agent.actor, { runtimeSession: runtime }).session.create({ id: "s3" });
      await f.as("orchestrator").task.create({ sessionId: "s3", key: "t1", title: "open work" });
      await expectDelivered(async () => handleClaudeCodeHook(agent, stop(false), { maxBlocks: 1 }), ["runtime.stop_held"]);
      await expectDelivered(async () => handleClaudeCodeHook(agent, stop(true), { maxBlocks: 1 }), ["runtime.stop_unverified"]);
      await expectDelivered(() => f.as("orchestrator").session.updateStatus({ sessionId: "s3", status: "failed" }), ["session.failed"]);

      await f.as("orchestrator").session.create({ id: "s4" });
      await f.as("orchestrator").criteria.save({ sessionId: "s4", criteria: [{ criterion: "c1" }] });
      await f.as("orchestrator").criteria.update({ sessionId: "s4", criterion: "c1", status: "met", evidence: "ci run 12" });
      // Completing runs the gate: its accepted check notifies nobody, the completion does.
      await expectDelivered(() => f.as("orchestrator").session.updateStatus({ sessionId: "s4", status: "completed" }), ["session.completed"]);

      // Every webhook event was delivered, each ledger event exactly once (no duplicates from retries or passes).
      const bodies = r.json<{ type: string; data: { eventId: number; url: string | null } }>();
      expect(new Set(bodies.map((b) => b.type))).toEqual(new Set(WEBHOOK_EVENTS));
      expect(new Set(bodies.map((b) => b.data.eventId)).size).toBe(bodies.length);
      expect(new Set(r.received.map((m) => m.headers["webhook-id"])).size).toBe(bodies.length);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(r.received).toHaveLength(bodies.length);
      expect(bodies[0]!.data.url).toBe("https://proofgate.example.com/sessions/s1#task-t1");
      expect(await rowsLikeSqlite(f.db, "select status, count(*) as n from webhook_deliveries group by status")).toEqual([
        { status: "delivered", n: bodies.length },
      ]);
    });

    it("sends only the events a subscription asked for, of its session source, and Slack messages with a link", async () => {
      const f = setup(await freshLedger(engine));
      const json = await receiver();
      const slack = await receiver();
      const bazinga = await receiver();
      await f.as("admin").admin.createWebhook({ url: json.url, events: ["task.reset_requested"] });
      await f.as("admin").admin.createWebhook({ url: slack.url, events: ["task.blocked"], format: "slack" });
      await f.as("admin").admin.createWebhook({ url: bazinga.url, events: "all", sessionSource: "bazinga" });
      dispatch(f.db);
      await f.as("orchestrator").session.create({ id: "s1" });
      await f.as("orchestrator").task.create({ ...S, key: "t1", title: "Task t1" });
      await f.as("developer").task.claim({ ...S, key: "t1" });
      await f.as("verifier").task.block({ ...S, key: "t1", failures: ["tests fail"] });
      await f.as("orchestrator").task.requestReset({ ...S, key: "t1", reason: "fixed" });
      await waitFor(async () => json.received.length === 1 && slack.received.length === 1, HANG_MS, "both deliveries");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(json.json().map((b) => b.type)).toEqual(["task.reset_requested"]);
      expect(bazinga.received).toEqual([]);
      const message = JSON.parse(slack.received[0]!.body) as { text: string; blocks: { type: string; elements?: { url?: string }[] }[] };
      expect(message.text).toBe("Proofgate: a task was blocked — task t1 in session s1 (by verifier_1)");
      expect(message.blocks.find((b) => b.type === "actions")?.elements?.[0]?.url).toBe("https://proofgate.example.com/sessions/s1#task-t1");
    });

    it("delivers to a receiver that was down once it returns, without slowing the write; gives up after the retry window", async () => {
      const f = setup(await freshLedger(engine));
      const down = await receiver();
      const port = down.port;
      await down.close();
      await f.as("admin").admin.createWebhook({ url: `http://127.0.0.1:${port}/hook`, events: ["task.blocked"] });
      dispatch(f.db);
      await f.as("orchestrator").session.create({ id: "s1" });
      await f.as("orchestrator").task.create({ ...S, key: "t1", title: "Task t1" });
      await f.as("developer").task.claim({ ...S, key: "t1" });
      await f.as("verifier").task.block({ ...S, key: "t1", failures: ["tests fail"] });
      const failing = await waitFor(
        async () =>
          (
            await rowsLikeSqlite<{ attempts: number; status: string; last_error: string }>(f.db, "select attempts, status, last_error from webhook_deliveries")
          ).find((d) => d.attempts >= 2),
        HANG_MS,
        "two failed attempts",
      );
      expect(failing).toMatchObject({ status: "pending", last_error: expect.stringContaining(`could not reach 127.0.0.1:${port}`) });
      const back = await receiver(port);
      await waitFor(async () => back.received.length === 1, HANG_MS, "the delivery after the receiver returned");
      expect(back.json()[0]!.type).toBe("task.blocked");
      await waitFor(
        async () => (await rowsLikeSqlite(f.db, "select 1 from webhook_deliveries where status = 'delivered' and response_code = 200")).length === 1,
        HANG_MS,
        "delivered",
      );

      // A receiver that never answers holds nobody's write: the write only inserts the outbox row.
      const hanging = await receiver();
      hanging.hold = true;
      await f.as("admin").admin.createWebhook({ url: hanging.url, events: ["task.reset_requested"] });
      await f.as("orchestrator").task.requestReset({ ...S, key: "t1", reason: "fixed" });
      await waitFor(async () => hanging.received.length === 1, HANG_MS, "the held request");
      await f.as("lead").task.approveReset({ ...S, key: "t1", reason: "ok" });
      // The write is done while its delivery's request is still unanswered (it would be held until the 30 s timeout).
      expect(
        await rowsLikeSqlite(
          f.db,
          "select attempts, status from webhook_deliveries where event_type = 'task.reset_requested' and subscription_id = (select max(id) from webhook_subscriptions)",
        ),
      ).toEqual([{ attempts: 0, status: "pending" }]);

      // Past the retry window a failing delivery is given up, its last error kept.
      const g = setup(await freshLedger(engine));
      await g.as("admin").admin.createWebhook({ url: `http://127.0.0.1:${port}/gone`, events: "all" });
      back.status = 500;
      dispatch(g.db, { retry: { baseMs: 50, maxMs: 50, giveUpAfterMs: 2_000 } });
      await g.as("orchestrator").session.create({ id: "s1" });
      await g.as("orchestrator").session.updateStatus({ sessionId: "s1", status: "failed" });
      const failed = await waitFor(
        async () =>
          (
            await rowsLikeSqlite<{ status: string; response_code: number; attempts: number }>(g.db, "select * from webhook_deliveries where status = 'failed'")
          )[0],
        HANG_MS,
        "given up",
      );
      expect(failed.response_code).toBe(500);
      // Tried again within the window (how many times depends on the machine's speed), then given up.
      expect(failed.attempts).toBeGreaterThanOrEqual(2);
    });

    it("counts each subscription's own deliveries in the list, whatever their ids", async () => {
      const f = setup(await freshLedger(engine));
      const first = await f.as("admin").admin.createWebhook({ url: "https://receiver.invalid/a", events: "all" });
      const second = await f.as("admin").admin.createWebhook({ url: "https://receiver.invalid/b", events: "all" });
      // No dispatcher: every delivery stays pending. Three for the first, two for the second.
      for (let i = 0; i < 3; i++) await f.as("admin").admin.testWebhook({ id: first.id });
      for (let i = 0; i < 2; i++) await f.as("admin").admin.testWebhook({ id: second.id });
      const listed = await f.as("admin").admin.webhooks();
      // Newest first.
      expect(listed.map((w) => [w.id, w.pending, w.delivered, w.failed])).toEqual([
        [second.id, 2, 0, 0],
        [first.id, 3, 0, 0],
      ]);
    });

    it("sends a webhook.test delivery on demand, logged like any other", async () => {
      const f = setup(await freshLedger(engine));
      const r = await receiver();
      const { id, secret } = await f.as("admin").admin.createWebhook({ url: r.url, events: ["session.failed"] });
      dispatch(f.db);
      await f.as("admin").admin.testWebhook({ id });
      await waitFor(async () => r.received.length === 1, HANG_MS, "the test delivery");
      expect(new Webhook(secret).verify(r.received[0]!.body, r.received[0]!.headers)).toMatchObject({ type: "webhook.test", data: { entity: "webhook" } });
      await waitFor(
        async () => (await rowsLikeSqlite(f.db, "select 1 from webhook_deliveries where status = 'delivered'")).length === 1,
        HANG_MS,
        "logged as delivered",
      );
      expect(await f.as("admin").admin.webhookDeliveries({ id })).toEqual([
        expect.objectContaining({ eventType: "webhook.test", status: "delivered", attempts: 1, responseCode: 200, lastError: null }),
      ]);
      expect(await f.as("admin").admin.webhooks()).toEqual([expect.objectContaining({ id, url: r.url, delivered: 1, pending: 0, failed: 0 })]);
      await f.as("admin").admin.removeWebhook({ id });
      expect(await f.as("admin").admin.webhooks()).toEqual([]);
      expect(await rowsLikeSqlite(f.db, "select * from webhook_deliveries")).toEqual([]);
    });
  });

  describe("several server processes on one database", () => {
    beforeEach(allowPrivateReceivers);
    it("never deliver one row twice: claims are leased in the write transaction", async () => {
      const { db: first, target } = await sharedLedger(engine);
      const others = [await openLedger(target, { migrate: false, poolSize: 2 }), await openLedger(target, { migrate: false, poolSize: 2 })];
      cleanup.push(async () => {
        for (const c of others) await closeLedger(c);
      });
      const connections = [first, ...others];
      const [writer, ...dispatchers] = connections as [Db, Db, Db];
      const r = await receiver();
      const admin = callerFor(writer, ACTORS.admin);
      const { id } = await admin.admin.createWebhook({ url: r.url, events: "all" });
      const owners = dispatchers.map((db) => dispatch(db, { batch: 2 }).owner);
      for (let n = 0; n < 30; n++) await admin.admin.testWebhook({ id });
      await waitFor(
        async () => (await rowsLikeSqlite(writer, "select 1 from webhook_deliveries where status = 'delivered'")).length === 30,
        10_000,
        "30 deliveries",
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(r.received).toHaveLength(30);
      expect(new Set(r.received.map((m) => m.headers["webhook-id"])).size).toBe(30);
      expect(await rowsLikeSqlite(writer, "select count(*) as n from webhook_deliveries where attempts = 1")).toEqual([{ n: 30 }]);
      expect(owners[0]).not.toBe(owners[1]);
    });
  });

  describe("receivers on loopback, private, link-local and unique-local addresses (issue 30, item 7)", () => {
    const refusedRule = /webhooks reach public addresses only \(PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1 on the server allows private ones\)$/;

    it("are refused at creation, naming the field and the rule, writing nothing; PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1 allows them", async () => {
      const f = setup(await freshLedger(engine));
      const urls = {
        "http://127.0.0.1:8080/hook": "127.0.0.1, a loopback address",
        "http://localhost:3000/hook": "localhost, a loopback name",
        "http://169.254.169.254/latest/meta-data/": "169.254.169.254, a cloud metadata address",
        "https://10.0.0.5/hook": "10.0.0.5, a private address",
        "http://[::ffff:192.168.1.1]/hook": "::ffff:c0a8:101, a private address",
        "http://[fd00::1]/hook": "fd00::1, a unique-local address",
      };
      for (const [url, what] of Object.entries(urls)) {
        const before = await tableCountsOf(f.db);
        const refusal = await expectBadRequest(f.as("admin").admin.createWebhook({ url, events: "all" }), "url");
        expect(refusal.message).toMatch(new RegExp(`^url: must not point to ${what.replace(/[.[\]()]/g, "\\$&")}: `));
        expect(refusal.message).toMatch(refusedRule);
        // The service verb names its own rule (the API reports any bad input as input.invalid, with the field).
        await expect(createWebhook({ db: f.db, actor: ACTORS.admin }, { url, events: "all" })).rejects.toMatchObject({
          field: "url",
          rule: "webhook.private_address",
        });
        expect(await tableCountsOf(f.db)).toEqual(before);
      }
      allowPrivateReceivers();
      for (const url of Object.keys(urls)) await f.as("admin").admin.createWebhook({ url, events: "all" });
      expect(await f.as("admin").admin.webhooks()).toHaveLength(Object.keys(urls).length);
    });

    it("are refused at delivery, after resolution, logged as failed with the reason and no status, nothing sent", async () => {
      const f = setup(await freshLedger(engine));
      const r = await receiver();
      // Made while allowed (or a name that resolved elsewhere then); the server no longer allows them.
      allowPrivateReceivers();
      const literal = await f.as("admin").admin.createWebhook({ url: r.url, events: "all" });
      const named = await f.as("admin").admin.createWebhook({ url: `http://hooks.internal.example:${r.port}/hook`, events: "all" });
      vi.stubEnv("PROOFGATE_WEBHOOK_ALLOW_PRIVATE", undefined);
      const resolved: string[] = [];
      // The name resolves to the receiver's own address: were it not refused, the POST would arrive.
      const resolve = async (hostname: string) => (resolved.push(hostname), [{ address: "127.0.0.1", family: 4 }]);
      dispatch(f.db, { allowPrivate: false, resolve });
      await f.as("admin").admin.testWebhook({ id: literal.id });
      await f.as("admin").admin.testWebhook({ id: named.id });
      await waitFor(async () => (await rowsLikeSqlite(f.db, "select 1 from webhook_deliveries where status = 'failed'")).length === 2, HANG_MS, "both refused");
      expect(await f.as("admin").admin.webhookDeliveries({ id: literal.id })).toEqual([
        expect.objectContaining({
          status: "failed",
          attempts: 1,
          responseCode: null,
          lastError: expect.stringMatching(/^refused: 127\.0\.0\.1 resolves to a loopback address; /),
        }),
      ]);
      expect(await f.as("admin").admin.webhookDeliveries({ id: named.id })).toEqual([
        expect.objectContaining({
          status: "failed",
          attempts: 1,
          responseCode: null,
          lastError: expect.stringMatching(/^refused: hooks\.internal\.example resolves to a loopback address; .*PROOFGATE_WEBHOOK_ALLOW_PRIVATE=1/),
        }),
      ]);
      // Refused before connecting: nothing was sent, so nothing can arrive later.
      expect(r.received).toEqual([]);
      expect(resolved).toEqual(["hooks.internal.example"]);
    });

    it("connect to the address that was checked: the name is resolved once per attempt and never again by the HTTP client", async () => {
      const f = setup(await freshLedger(engine));
      const r = await receiver();
      allowPrivateReceivers();
      // `.invalid` never resolves: the POST can only arrive through the address the dispatcher checked.
      const { id } = await f.as("admin").admin.createWebhook({ url: `http://rebind.invalid:${r.port}/hook`, events: ["session.failed"] });
      const resolved: string[] = [];
      // DNS rebinding: a second answer would point elsewhere (TEST-NET-1, where nothing listens).
      const resolve = async (hostname: string) => [{ address: resolved.push(hostname) === 1 ? "127.0.0.1" : "192.0.2.1", family: 4 }];
      dispatch(f.db, { allowPrivate: true, resolve });
      await f.as("admin").admin.testWebhook({ id });
      await waitFor(async () => r.received.length === 1, HANG_MS, "the test delivery");
      expect(r.received[0]!.headers.host).toBe(`rebind.invalid:${r.port}`);
      await waitFor(
        async () => (await rowsLikeSqlite(f.db, "select 1 from webhook_deliveries where status = 'delivered'")).length === 1,
        HANG_MS,
        "logged as delivered",
      );
      expect(resolved).toEqual(["rebind.invalid"]);
    });
  });

  describe("creating a webhook", () => {
    let f: Fixture;
    const refusedWithNothingWritten = async (input: Record<string, unknown>, field: string, message: RegExp) => {
      const before = await tableCountsOf(f.db);
      const refusal = await expectBadRequest(f.as("admin").admin.createWebhook(input as never), field);
      expect(refusal.message).toMatch(message);
      expect(await tableCountsOf(f.db)).toEqual(before);
    };

    it("refuses a URL that is not http(s) and a secret that is not a whsec_ secret, naming the field, writing nothing", async () => {
      f = setup(await freshLedger(engine));
      await refusedWithNothingWritten({ url: "ftp://example.com/hook", events: "all" }, "url", /^url: must use http or https, not ftp/);
      await refusedWithNothingWritten({ url: "example.com/hook", events: "all" }, "url", /^url: must be an absolute http/);
      await refusedWithNothingWritten({ url: "https://example.com/hook", events: "all", secret: "hunter2" }, "secret", /^secret: must start with whsec_/);
      await refusedWithNothingWritten(
        { url: "https://example.com/hook", events: "all", secret: "whsec_not base64!" },
        "secret",
        /^secret: must be whsec_ followed by base64/,
      );
      await refusedWithNothingWritten({ url: "https://example.com/hook", events: "all", secret: "whsec_c2hvcnQ=" }, "secret", /24 to 64 bytes/);
      await refusedWithNothingWritten(
        { url: "https://example.com/hook", events: ["task.exploded"] },
        "events",
        /^events: unknown event "task.exploded": must be all, or some of: task.blocked, /,
      );
      await refusedWithNothingWritten({ url: "https://example.com/hook", events: [] }, "events", /^events: must name at least one event \(or all\)/);
    });

    it("keeps the secret it was given (verifiable by the receiver) and stores it sealed, never in clear", async () => {
      f = setup(await freshLedger(engine));
      const given = `whsec_${Buffer.from("k".repeat(32)).toString("base64")}`;
      const created = await f.as("admin").admin.createWebhook({ url: "https://example.com/hook", events: "all", secret: given });
      expect(created.secret).toBe(given);
      const generated = await f.as("admin").admin.createWebhook({ url: "https://example.com/other", events: ["task.blocked"] });
      expect(generated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      // The searches find what is there: a stored URL, by its text and by its bytes.
      expect(await columnsHolding(f.db, "example.com/other")).toContain("webhook_subscriptions.url");
      expect(await columnsHoldingBytes(f.db, Buffer.from("example.com/other"))).toContain("webhook_subscriptions.url");
      // A key may hold any byte, NUL too (a generated one does, one time in sixteen, in its first 16 bytes).
      const binary = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString("base64")}`;
      await f.as("admin").admin.createWebhook({ url: "https://example.com/third", events: "all", secret: binary });
      for (const secret of [given, generated.secret, binary]) {
        expect(await columnsHolding(f.db, secret.slice(6))).toEqual([]);
        const key = Buffer.from(secret.slice(6), "base64");
        expect(await columnsHolding(f.db, key.toString("hex"))).toEqual([]);
        expect(await columnsHolding(f.db, key.toString("base64url"))).toEqual([]);
        expect(await columnsHoldingBytes(f.db, key.subarray(0, 16))).toEqual([]);
      }
      expect(JSON.stringify(await f.as("admin").admin.webhooks())).not.toContain(generated.secret.slice(6));
    });

    it("is an admin's: every other role is refused, as are the list, the log, tests and removal", async () => {
      f = setup(await freshLedger(engine));
      const { id } = await f.as("admin").admin.createWebhook({ url: "https://example.com/hook", events: "all" });
      for (const role of ["viewer", "developer", "verifier", "orchestrator", "lead"] as const) {
        const before = await tableCountsOf(f.db);
        await expectForbidden(f.as(role).admin.createWebhook({ url: "https://example.com/x", events: "all" }), /admin\.webhook_role/);
        await expectForbidden(f.as(role).admin.webhooks(), /admin\.webhook_role/);
        await expectForbidden(f.as(role).admin.webhookDeliveries({ id }), /admin\.webhook_role/);
        await expectForbidden(f.as(role).admin.testWebhook({ id }), /admin\.webhook_role/);
        await expectForbidden(f.as(role).admin.removeWebhook({ id }), /admin\.webhook_role/);
        expect(await tableCountsOf(f.db)).toEqual(before);
      }
    });
  });
});
