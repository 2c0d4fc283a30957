/**
 * better-auth on both engines (issue 21): on a PostgreSQL ledger it runs its drizzle adapter with
 * `provider: "pg"`, a path of its own. What the sign-in pages and the API rely on, through real
 * requests to its handler: the first-run setup, then signing in; a session refreshed after a day
 * and ended by signing out; a role change seen by an open session; a password change; and a
 * person unable to give themselves a role. The browser tests (e2e/auth.spec.ts) cover the pages on SQLite.
 */
// flake-risks time: a lower bound a whole day below the session's lifetime
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import type { Db } from "@/db/client";
import { rawRun } from "@/db/query";
import { createRequestContext } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { operatorActor } from "@/server/domain/actors";
import { callerFor, refusal } from "@/test/support/api-helpers";
import { describeEngines, ledgerFactory } from "@/test/support/engines";
import { rowsOf } from "@/test/support/rows";
import { type Auth, SESSION_MAX_AGE_SECONDS, createAuth } from "./auth";

const ORIGIN = "http://localhost:3000";
const PASSWORD = "correct horse battery staple";
const DAY_MS = 86_400_000;
const freshLedger = ledgerFactory();

describeEngines("better-auth", (engine) => {
  // Sign-in attempts are limited per address (server/auth/rate-limit.ts): each request comes from its own.
  let host = 0;
  const nextAddress = () => `${engine === "sqlite" ? "198.51.100" : "203.0.113"}.${++host}`;

  async function ledger(): Promise<{ db: Db; auth: Auth }> {
    const db = await freshLedger(engine);
    return { db, auth: createAuth(db, { secret: "x".repeat(32), baseURL: ORIGIN }) };
  }

  function post(auth: Auth, endpoint: string, body: unknown, cookie?: string): Promise<Response> {
    return auth.handler(
      new Request(`${ORIGIN}/api/auth/${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN, "x-forwarded-for": nextAddress(), ...(cookie && { cookie }) },
        body: JSON.stringify(body),
      }),
    );
  }

  /** Sign in and return the session cookie (the request must succeed). */
  async function signIn(auth: Auth, email: string, password = PASSWORD): Promise<string> {
    const res = await post(auth, "sign-in/email", { email, password });
    expect(res.status, `sign in as ${email}`).toBe(200);
    return cookieOf(res);
  }

  const cookieOf = (res: Response) =>
    res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");

  /** Who the API takes a request carrying `cookie` for. */
  async function actorOf(db: Db, auth: Auth, cookie: string) {
    const ctx = await createRequestContext(new Request(`${ORIGIN}/api/trpc/session.list`, { headers: { cookie, origin: ORIGIN } }), db, auth);
    return ctx.actor;
  }

  it("creates one first admin when two visitors race the setup, who then signs in with the email in any case", async () => {
    const { db, auth } = await ledger();
    const anonymous = createCaller({ db, actor: null, via: "none", sameOrigin: true });
    const results = await Promise.allSettled([
      anonymous.setup.createFirstAdmin({ email: "Lead@Example.com", password: PASSWORD }),
      anonymous.setup.createFirstAdmin({ email: "other@example.com", password: PASSWORD }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect((await refusal(Promise.reject(lost.reason))).data.rule).toBe("setup.already_done");
    const [admin] = await rowsOf<{ email: string; role: string }>(db, sql`select email, role from users`);
    expect(admin?.role).toBe("admin");

    const cookie = await signIn(auth, admin!.email.toUpperCase());
    expect(await actorOf(db, auth, cookie)).toMatchObject({ principalKind: "user", role: "admin", label: admin!.email });
  });

  it("refreshes a session once it is a day old, and signing out ends it", async () => {
    const { db, auth } = await ledger();
    await callerFor(db, operatorActor("setup")).admin.createUser({ email: "lead@example.com", password: PASSWORD, role: "lead" });
    const cookie = await signIn(auth, "lead@example.com");
    // Signed in two days ago: the session has five of its seven days left.
    await rawRun(db, sql`update auth_sessions set expires_at = expires_at - ${2 * DAY_MS}, updated_at = updated_at - ${2 * DAY_MS}`);
    const session = await auth.handler(new Request(`${ORIGIN}/api/auth/get-session`, { headers: { cookie } }));
    expect(session.status).toBe(200);
    const [{ expires_at: expiresAt }] = (await rowsOf<{ expires_at: number }>(db, sql`select expires_at from auth_sessions`)) as [{ expires_at: number }];
    expect(expiresAt).toBeGreaterThan(Date.now() + SESSION_MAX_AGE_SECONDS * 1000 - DAY_MS);

    expect((await post(auth, "sign-out", {}, cookie)).status).toBe(200);
    expect(await rowsOf(db, sql`select count(*) as n from auth_sessions`)).toEqual([{ n: 0 }]);
    expect(await actorOf(db, auth, cookie)).toBeNull();
  });

  it("a role changed by an admin applies to the person's open session at once", async () => {
    const { db, auth } = await ledger();
    const admin = callerFor(db, operatorActor("setup"));
    const lead = await admin.admin.createUser({ email: "lead@example.com", password: PASSWORD, role: "lead" });
    const cookie = await signIn(auth, "lead@example.com");
    expect(await actorOf(db, auth, cookie)).toMatchObject({ role: "lead" });
    await admin.admin.setUserRole({ userId: lead.id, role: "viewer" });
    expect(await actorOf(db, auth, cookie)).toMatchObject({ role: "viewer", principalId: `user:${lead.id}` });
  });

  it("a password change keeps the person signed in, ends their other sessions, and only the new password signs in", async () => {
    const { db, auth } = await ledger();
    await callerFor(db, operatorActor("setup")).admin.createUser({ email: "lead@example.com", password: PASSWORD, role: "lead" });
    const cookie = await signIn(auth, "lead@example.com");
    const elsewhere = await signIn(auth, "lead@example.com");
    const changed = await post(auth, "change-password", { currentPassword: PASSWORD, newPassword: "a new passphrase 2c9d", revokeOtherSessions: true }, cookie);
    expect(changed.status).toBe(200);
    expect(await actorOf(db, auth, cookieOf(changed))).toMatchObject({ label: "lead@example.com" });
    expect(await actorOf(db, auth, elsewhere)).toBeNull();
    expect(await rowsOf(db, sql`select count(*) as n from auth_sessions`)).toEqual([{ n: 1 }]);
    expect((await post(auth, "sign-in/email", { email: "lead@example.com", password: PASSWORD })).status).toBe(401);
    await signIn(auth, "lead@example.com", "a new passphrase 2c9d");
  });

  it("a person may rename themselves but not give themselves a role", async () => {
    const { db, auth } = await ledger();
    await callerFor(db, operatorActor("setup")).admin.createUser({ email: "viewer@example.com", password: PASSWORD, role: "viewer" });
    const cookie = await signIn(auth, "viewer@example.com");
    const promoted = await post(auth, "update-user", { role: "admin" }, cookie);
    expect(promoted.status).toBe(400);
    expect(((await promoted.json()) as { code: string }).code).toBe("FIELD_NOT_ALLOWED");
    expect((await post(auth, "update-user", { name: "Vera" }, cookie)).status).toBe(200);
    expect(await rowsOf(db, sql`select name, role from users`)).toEqual([{ name: "Vera", role: "viewer" }]);
  });
});
