/** Personal API tokens on both engines (issue 21). */
// flake-risks time: expiry probed hours or days away from the boundary; the clock moves seconds during the test
import { sql } from "drizzle-orm";
import { queryRun, rawRun } from "@/db/query";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { users } from "@/db/schema";
import type { Actor } from "@/server/domain/actors";
import { MAX_ACTIVE_PERSONAL_TOKENS } from "@/server/domain/personal-tokens";
import { authenticateToken } from "@/server/services/admin/tokens";
import { ACTORS, BLOCKED, PASSED, expectForbidden, expectNotFound, expectNothingWritten, sessionWithTask, setup } from "@/test/support/api-helpers";
import { operatorActor } from "@/server/domain/actors";
import { describeEngines, ledgerFactory } from "@/test/support/engines";
import { columnsHolding, rowsLikeSqlite } from "@/test/support/rows";

const freshLedger = ledgerFactory();

type PersonRole = "viewer" | "lead" | "admin";

/** A person who signs in (a users row) and the actor their cookie session would be. */
async function person(db: Db, id: string, role: PersonRole): Promise<Actor> {
  await queryRun(db.insert(users).values({ id, name: id, email: `${id}@example.com`, role }));
  return { principalId: `user:${id}`, principalKind: "user", role, label: `${id}@example.com` };
}

describeEngines("personal API tokens", (engine) => {
  describe("personal API tokens", () => {
    it("are created for the signed-in person, shown once, stored as a hash, and listed to their owner only", async () => {
      const f = setup(await freshLedger(engine));
      const ann = await person(f.db, "ann", "viewer");
      const bob = await person(f.db, "bob", "lead");
      const created = await f.by(ann).account.createToken({ name: "laptop script", expiresInDays: 30 });
      expect(created.token).toMatch(/^pg_[A-Za-z0-9_-]{43}$/);
      expect(created).toMatchObject({ name: "laptop script", prefix: created.token.slice(0, 10) });
      expect(created.expiresAt!.getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);

      const hash = createHash("sha256").update(created.token).digest("hex");
      expect(await rowsLikeSqlite(f.db, "select name, role, user_id, token_hash, created_by from api_tokens")).toEqual([
        { name: "laptop script", role: null, user_id: "ann", token_hash: hash, created_by: "ann@example.com" },
      ]);
      expect(await columnsHolding(f.db, created.token)).toEqual([]);

      const mine = await f.by(ann).account.tokens();
      expect(mine).toEqual([expect.objectContaining({ id: created.id, name: "laptop script", prefix: created.prefix, lastUsedAt: null, revokedAt: null })]);
      expect(JSON.stringify(mine)).not.toContain(created.token);
      expect(Object.keys(mine[0]!)).not.toContain("tokenHash");
      expect(await f.by(bob).account.tokens()).toEqual([]);
      expect(await rowsLikeSqlite(f.db, "select type, actor, principal_id, via from events")).toEqual([
        { type: "account.token_created", actor: "ann@example.com", principal_id: "user:ann", via: null },
      ]);
    });

    it("act as their owner with the owner's role: the person is the principal, and events note the token", async () => {
      const f = setup(await freshLedger(engine));
      const lead = await person(f.db, "lena", "lead");
      const { id, token } = await f.by(lead).account.createToken({ name: "release script" });
      const actor = (await authenticateToken(f.db, token))!;
      expect(actor).toEqual({
        principalId: "user:lena",
        principalKind: "user",
        role: "lead",
        label: "lena@example.com",
        token: { id, name: "release script" },
      });

      // The lead's script approves a reset, as the lead would in the inbox.
      await sessionWithTask(f);
      await f.as("developer").task.start({ sessionId: "s1", key: "t1" });
      await f.as("developer").task.claim({ sessionId: "s1", key: "t1" });
      await f.as("verifier").task.block({ sessionId: "s1", key: "t1", proofpack: BLOCKED, failures: ["3 tests failing"] });
      await f.by(actor).task.approveReset({ sessionId: "s1", key: "t1", reason: "flaky runner, retry" });
      expect(await rowsLikeSqlite(f.db, "select actor, principal_id, role, via from events where type = 'task.reset_approved'")).toEqual([
        { actor: "lena@example.com", principal_id: "user:lena", role: "lead", via: `token:${id} release script` },
      ]);
      const [event] = (await f.by(actor).events.search({ filter: { type: "task.reset_approved" } })).items;
      expect(event!.summary).toBe("lena@example.com (via token release script) approved the reset of task t1: back to pending");
    });

    it("follow the owner's current role: a demotion demotes the token at its next request", async () => {
      const f = setup(await freshLedger(engine));
      const lead = await person(f.db, "lena", "lead");
      const { token } = await f.by(lead).account.createToken({ name: "script" });
      expect((await authenticateToken(f.db, token))?.role).toBe("lead");
      await f.as("admin").admin.setUserRole({ userId: "lena", role: "viewer" });
      const demoted = (await authenticateToken(f.db, token))!;
      expect(demoted.role).toBe("viewer");
      await sessionWithTask(f);
      await f.as("developer").task.start({ sessionId: "s1", key: "t1" });
      await f.as("developer").task.claim({ sessionId: "s1", key: "t1" });
      await expectForbidden(f.by(demoted).task.verify({ sessionId: "s1", key: "t1", proofpack: PASSED }), "task.verify_role");
      await f.as("admin").admin.setUserRole({ userId: "lena", role: "admin" });
      expect((await authenticateToken(f.db, token))?.role).toBe("admin");
    });

    it("stop working when their owner is removed (the tokens go with the person)", async () => {
      const f = setup(await freshLedger(engine));
      const ann = await person(f.db, "ann", "viewer");
      const { token } = await f.by(ann).account.createToken({ name: "script" });
      expect(await authenticateToken(f.db, token)).not.toBeNull();
      await rawRun(f.db, sql`delete from users where id = 'ann'`);
      expect(await authenticateToken(f.db, token)).toBeNull();
      expect(await rowsLikeSqlite(f.db, "select count(*) as n from api_tokens")).toEqual([{ n: 0 }]);
    });

    it("stop working after they expire or are revoked; an owner revokes only their own", async () => {
      const f = setup(await freshLedger(engine));
      const ann = await person(f.db, "ann", "viewer");
      const bob = await person(f.db, "bob", "lead");
      const temp = await f.by(ann).account.createToken({ name: "temp", expiresInDays: 1 });
      expect(await authenticateToken(f.db, temp.token, undefined, new Date(Date.now() + 3_600_000))).not.toBeNull();
      expect(await authenticateToken(f.db, temp.token, undefined, new Date(Date.now() + 2 * 86_400_000))).toBeNull();

      const kept = await f.by(ann).account.createToken({ name: "kept" });
      // Bob cannot revoke Ann's token, nor learn that it exists: NOT_FOUND, as for an unknown id.
      await expectNothingWritten(f.db, () => f.by(bob).account.revokeToken({ id: kept.id }));
      await expectNotFound(f.by(bob).account.revokeToken({ id: kept.id }));
      expect(await authenticateToken(f.db, kept.token)).not.toBeNull();

      await f.by(ann).account.revokeToken({ id: kept.id });
      expect(await authenticateToken(f.db, kept.token)).toBeNull();
      expect((await f.by(ann).account.tokens()).find((t) => t.id === kept.id)?.revokedAt).toBeInstanceOf(Date);
      await expectNotFound(f.by(ann).account.revokeToken({ id: kept.id }));
      expect((await rowsLikeSqlite<{ type: string }>(f.db, "select type from events order by id")).map((e) => e.type)).toEqual([
        "account.token_created",
        "account.token_created",
        "account.token_revoked",
      ]);
    });

    it("can be revoked by an admin, who sees every personal token with its owner and the role it acts with", async () => {
      const f = setup(await freshLedger(engine));
      const lena = await person(f.db, "lena", "lead");
      const { id, token } = await f.by(lena).account.createToken({ name: "script" });
      await f.as("admin").admin.createToken({ name: "developer_1", role: "agent" });
      const listed = await f.as("admin").admin.tokens();
      expect(listed.map((t) => [t.name, t.role, t.owner])).toEqual([
        ["developer_1", "agent", null],
        ["script", "lead", "lena@example.com"],
      ]);
      await f.as("admin").admin.revokeToken({ id });
      expect(await authenticateToken(f.db, token)).toBeNull();
      expect(await rowsLikeSqlite(f.db, "select data from events where type = 'admin.token_revoked'")).toEqual([
        { data: JSON.stringify({ name: "script", owner: "lena@example.com" }) },
      ]);
    });

    it("are made only by a signed-in person: not by agent tokens, the local operator, or a personal token", async () => {
      const f = setup(await freshLedger(engine));
      const ann = await person(f.db, "ann", "admin");
      const { token } = await f.by(ann).account.createToken({ name: "script" });
      const viaToken = (await authenticateToken(f.db, token))!;
      await expectNothingWritten(f.db, () => f.by(viaToken).account.createToken({ name: "another" }));
      await expectForbidden(f.by(viaToken).account.createToken({ name: "another" }), "account.token_from_token");
      // A personal token may still list and revoke its owner's tokens (a script can retire itself).
      expect((await f.by(viaToken).account.tokens()).map((t) => t.name)).toEqual(["script"]);

      await expectForbidden(f.as("developer").account.createToken({ name: "x" }), "account.token_role");
      await expectForbidden(f.as("orchestrator").account.tokens(), "account.token_role");
      // An agent token with a person's role, and the machine's operator, are nobody's.
      await expectForbidden(f.as("viewer").account.createToken({ name: "x" }), "account.person_required");
      await expectForbidden(f.by(operatorActor()).account.tokens(), "account.person_required");
      expect(ACTORS.viewer.principalKind).toBe("token");
    });

    it("refuse bad input naming the field, and a person's tokens are capped", async () => {
      const f = setup(await freshLedger(engine));
      const ann = await person(f.db, "ann", "viewer");
      const blank = await expectNothingWritten(f.db, () => f.by(ann).account.createToken({ name: "   " }));
      expect(blank.message).toContain("name");
      const long = await expectNothingWritten(f.db, () => f.by(ann).account.createToken({ name: "x", expiresInDays: 0 }));
      expect(long.message).toContain("expiresInDays");
      await expectNothingWritten(f.db, () => f.by(ann).account.createToken({ name: "x", role: "admin" } as never));
      await expectNothingWritten(f.db, () => f.by(ann).account.revokeToken({ id: 0 }));

      for (let i = 0; i < MAX_ACTIVE_PERSONAL_TOKENS; i++) await f.by(ann).account.createToken({ name: `t${i}` });
      const capped = await expectNothingWritten(f.db, () => f.by(ann).account.createToken({ name: "one more" }));
      expect(capped.data.rule).toBe("account.token_limit");
      await f.by(ann).account.revokeToken({ id: 1 });
      await f.by(ann).account.createToken({ name: "one more" });
    });
  });
});
