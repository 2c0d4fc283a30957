/**
 * Sign-in limits shared by every server on one database (issue 21): better-auth's rate limits are
 * counted in `auth_rate_limits`, not in each process's memory, so two servers allow 5 attempts a
 * minute per address between them. Each "server" here is its own ledger handle (its own SQLite
 * connection or PostgreSQL pool, as another process would open) with its own better-auth.
 */
import { sql } from "drizzle-orm";
import { afterAll, expect, it } from "vitest";
import { type Db, closeLedger, openLedger } from "@/db/client";
import { callerFor } from "@/test/support/api-helpers";
import { operatorActor } from "@/server/domain/actors";
import { describeEngines, sharedLedgerFactory } from "@/test/support/engines";
import { rowsOf } from "@/test/support/rows";
import { type Auth, createAuth } from "./auth";
import { databaseRateLimits } from "./rate-limit";

const ORIGIN = "http://localhost:3000";
const PASSWORD = "correct horse battery staple";
const sharedLedger = sharedLedgerFactory();
const others: Db[] = [];
afterAll(async () => {
  for (const db of others.splice(0)) await closeLedger(db);
});

/** A ledger and a second handle on it (the other server). */
async function twoHandles(engine: "sqlite" | "postgres"): Promise<[Db, Db]> {
  const { db, target } = await sharedLedger(engine);
  const other = await openLedger(target, { migrate: false, poolSize: 4 });
  others.push(other);
  return [db, other];
}

function signIn(auth: Auth, address: string, password: string): Promise<Response> {
  return auth.handler(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN, "x-forwarded-for": address },
      body: JSON.stringify({ email: "lead@example.com", password }),
    }),
  );
}

describeEngines("sign-in limits", (engine) => {
  it("are shared by two servers on one database: 5 attempts a minute per address between them, the sixth refused 429 by either", async () => {
    const [a, b] = await twoHandles(engine);
    await callerFor(a, operatorActor("setup")).admin.createUser({ email: "lead@example.com", password: PASSWORD, role: "lead" });
    const [authA, authB] = [a, b].map((db) => createAuth(db, { secret: "x".repeat(32), baseURL: ORIGIN }));
    const statuses: number[] = [];
    for (const auth of [authA, authB, authA, authB, authA]) statuses.push((await signIn(auth!, "198.51.100.7", "wrong password!")).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);

    // The right password, through the server that has seen only two of the five: still refused.
    const refused = await signIn(authB!, "198.51.100.7", PASSWORD);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("x-retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await signIn(authA!, "198.51.100.7", PASSWORD)).status).toBe(429);

    // Another address is not held back by that one, through either server.
    expect((await signIn(authA!, "198.51.100.8", PASSWORD)).status).toBe(200);
    const [row] = await rowsOf<{ count: number | string }>(b, sql`select count from auth_rate_limits where key = ${"198.51.100.7|/sign-in/email"}`);
    expect(Number(row?.count)).toBe(7);
  });

  it("let simultaneous attempts through two handles pass exactly up to the limit", async () => {
    const [a, b] = await twoHandles(engine);
    const [storeA, storeB] = [a, b].map((db) => databaseRateLimits(db));
    const rule = { window: 60, max: 5 };
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? storeA! : storeB!).consume("203.0.113.9|/sign-in/email", rule)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    expect(results.filter((r) => !r.allowed).every((r) => r.retryAfter !== null && r.retryAfter >= 1 && r.retryAfter <= 60)).toBe(true);
  });

  it("never ask for a wait longer than the window, even when another server opened it after this request read the clock", async () => {
    const [a, b] = await twoHandles(engine);
    const start = Date.UTC(2026, 10, 28, 12, 0, 0);
    // Server B reads the clock 5 s later than server A and commits first: the window begins after A's reading.
    const late = databaseRateLimits(b, () => start + 5_000);
    const early = databaseRateLimits(a, () => start);
    const rule = { window: 60, max: 1 };
    expect((await late.consume("racer|/sign-in/email", rule)).allowed).toBe(true);
    expect(await early.consume("racer|/sign-in/email", rule)).toEqual({ allowed: false, retryAfter: 60 });
    expect(await late.consume("racer|/sign-in/email", rule)).toEqual({ allowed: false, retryAfter: 60 });
  });

  it("open a new window once the rule's window has passed, and prune rows whose window ended an hour ago", async () => {
    const [db] = await twoHandles(engine);
    let now = Date.UTC(2026, 10, 28, 12, 0, 0);
    const store = databaseRateLimits(db, () => now);
    const rule = { window: 60, max: 2 };
    expect((await store.consume("k|/sign-in/email", rule)).allowed).toBe(true);
    now += 10_000;
    expect((await store.consume("k|/sign-in/email", rule)).allowed).toBe(true);
    now += 20_000;
    // The window began 30 s ago: 30 s to wait.
    expect(await store.consume("k|/sign-in/email", rule)).toEqual({ allowed: false, retryAfter: 30 });
    now += 30_000;
    expect(await store.consume("k|/sign-in/email", rule)).toEqual({ allowed: true, retryAfter: null });
    const rows = () =>
      rowsOf<{ key: string; count: number | string; window_start: number | string }>(
        db,
        sql`select key, count, window_start from auth_rate_limits order by key`,
      );
    expect((await rows()).map((r) => [r.key, Number(r.count), Number(r.window_start)])).toEqual([["k|/sign-in/email", 1, now]]);

    // Two hours on, another key's request prunes the stale one.
    now += 2 * 60 * 60 * 1000;
    await store.consume("other|/sign-in/email", rule);
    expect((await rows()).map((r) => r.key)).toEqual(["other|/sign-in/email"]);
  });
});
