// flake-risks time: expiry probed hours or days away from the boundary; the clock moves seconds during the test
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { authenticateToken } from "@/server/services/admin/tokens";
import { ACTORS, columnsContaining, count, eventTypes, expectNotFound, expectNothingWritten, rows, setup } from "@/test/support/api-helpers";

const NON_ADMINS = ["viewer", "developer", "verifier", "orchestrator", "lead"] as const;
const PASSWORD = "correct horse battery staple";

describe("admin tokens", () => {
  it("creates a token whose plaintext (pg_…) is returned once and whose SHA-256 alone is stored", async () => {
    const f = setup();
    const created = await f.as("admin").admin.createToken({ name: "developer_1", role: "agent", expiresInDays: 30 });
    expect(created).toMatchObject({ name: "developer_1", role: "agent" });
    expect(created.token).toMatch(/^pg_[A-Za-z0-9_-]{43}$/);
    expect(created.prefix).toBe(created.token.slice(0, 10));

    const hash = createHash("sha256").update(created.token).digest("hex");
    expect(rows(f.db, "select name, role, token_hash, created_by from api_tokens")).toEqual([
      { name: "developer_1", role: "agent", token_hash: hash, created_by: "admin@example.com" },
    ]);
    // The scan finds the hash where it belongs (so it does look) and the plaintext nowhere.
    expect(columnsContaining(f.db, hash)).toEqual(["api_tokens.token_hash"]);
    expect(columnsContaining(f.db, created.token)).toEqual([]);
    expect(columnsContaining(f.db, created.token.slice(10))).toEqual([]);

    const listed = await f.as("admin").admin.tokens();
    expect(listed).toEqual([expect.objectContaining({ id: created.id, name: "developer_1", role: "agent", prefix: created.prefix, revokedAt: null })]);
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(Object.keys(listed[0]!)).not.toContain("tokenHash");
    expect(eventTypes(f.db)).toEqual(["admin.token_created"]);
    expect(await authenticateToken(f.db, created.token, "developer_1")).toMatchObject({
      principalId: `token:${created.id}`,
      role: "agent",
      label: "developer_1",
    });
  });

  it("revokes a token: it stops authenticating, and revoking again or an unknown id is NOT_FOUND", async () => {
    const f = setup();
    const { id, token } = await f.as("admin").admin.createToken({ name: "verifier_1", role: "verifier" });
    await f.as("admin").admin.revokeToken({ id });
    expect(rows<{ revoked_at: number | null }>(f.db, "select revoked_at from api_tokens")[0]!.revoked_at).toEqual(expect.any(Number));
    expect(await authenticateToken(f.db, token)).toBeNull();
    expect((await f.as("admin").admin.tokens())[0]!.revokedAt).toBeInstanceOf(Date);
    expect(eventTypes(f.db)).toEqual(["admin.token_created", "admin.token_revoked"]);
    await expectNothingWritten(f.db, () => f.as("admin").admin.revokeToken({ id }));
    await expectNotFound(f.as("admin").admin.revokeToken({ id: 999 }));
  });

  it("stops authenticating a token after it expires", async () => {
    const f = setup();
    const { token } = await f.as("admin").admin.createToken({ name: "temp", role: "agent", expiresInDays: 1 });
    expect(await authenticateToken(f.db, token, undefined, new Date(Date.now() + 3_600_000))).not.toBeNull();
    expect(await authenticateToken(f.db, token, undefined, new Date(Date.now() + 2 * 86_400_000))).toBeNull();
  });

  it("refuses bad token input and writes nothing", async () => {
    const f = setup();
    await expectNothingWritten(f.db, () => f.as("admin").admin.createToken({ name: "x", role: "root" as "admin" }));
    await expectNothingWritten(f.db, () => f.as("admin").admin.createToken({ name: "   ", role: "agent" }));
    await expectNothingWritten(f.db, () => f.as("admin").admin.revokeToken({ id: 0 }));
  });
});

describe("admin users", () => {
  it("creates a user with a hashed password, lists them, and changes their role", async () => {
    const f = setup();
    const user = await f.as("admin").admin.createUser({ email: " Lead@Example.com ", password: PASSWORD, role: "lead" });
    expect(user).toMatchObject({ email: "lead@example.com", name: "lead", role: "lead" });
    const [account] = rows<{ provider_id: string; password: string }>(f.db, "select provider_id, password from auth_accounts");
    expect(account?.provider_id).toBe("credential");
    expect(account?.password).not.toContain(PASSWORD);
    expect(columnsContaining(f.db, PASSWORD)).toEqual([]);
    expect((await f.as("admin").admin.users()).map((u) => [u.email, u.role])).toEqual([["lead@example.com", "lead"]]);

    const changed = await f.as("admin").admin.setUserRole({ userId: user.id, role: "viewer" });
    expect(changed.role).toBe("viewer");
    expect(rows(f.db, "select role from users")).toEqual([{ role: "viewer" }]);
    expect(eventTypes(f.db)).toEqual(["admin.user_created", "admin.user_role_changed"]);
  });

  it("refuses a duplicate email as a CONFLICT and an unknown user as NOT_FOUND", async () => {
    const f = setup();
    await f.as("admin").admin.createUser({ email: "a@example.com", password: PASSWORD, role: "viewer" });
    const r = await expectNothingWritten(f.db, () => f.as("admin").admin.createUser({ email: "A@example.com", password: PASSWORD, role: "lead" }));
    expect(r).toMatchObject({ code: "CONFLICT", data: { rule: "admin.user_exists" } });
    await expectNotFound(f.as("admin").admin.setUserRole({ userId: "nope", role: "lead" }));
  });

  it("never demotes the last admin, but demotes one of two", async () => {
    const f = setup();
    const first = await f.as("admin").admin.createUser({ email: "root@example.com", password: PASSWORD, role: "admin" });
    const r = await expectNothingWritten(f.db, () => f.as("admin").admin.setUserRole({ userId: first.id, role: "lead" }));
    expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule: "admin.last_admin" } });
    expect(r.message).toContain("the last admin cannot be demoted");
    const second = await f.as("admin").admin.createUser({ email: "second@example.com", password: PASSWORD, role: "admin" });
    await f.as("admin").admin.setUserRole({ userId: first.id, role: "lead" });
    await expectNothingWritten(f.db, () => f.as("admin").admin.setUserRole({ userId: second.id, role: "viewer" }));
    expect(rows(f.db, "select email, role from users order by email")).toEqual([
      { email: "root@example.com", role: "lead" },
      { email: "second@example.com", role: "admin" },
    ]);
  });

  it("refuses bad user input and writes nothing", async () => {
    const f = setup();
    await expectNothingWritten(f.db, () => f.as("admin").admin.createUser({ email: "not-an-email", password: PASSWORD, role: "lead" }));
    await expectNothingWritten(f.db, () => f.as("admin").admin.createUser({ email: "a@example.com", password: "short", role: "lead" }));
    // People are viewer, lead or admin; agent roles belong to tokens.
    await expectNothingWritten(f.db, () => f.as("admin").admin.createUser({ email: "a@example.com", password: PASSWORD, role: "agent" as "lead" }));
  });
});

describe("only admins", () => {
  it.each(NON_ADMINS)("refuses a %s every admin procedure FORBIDDEN, naming the procedure, writing nothing", async (name) => {
    const f = setup();
    const { id } = await f.as("admin").admin.createToken({ name: "victim", role: "agent" });
    const caller = f.as(name);
    const calls: [string, () => Promise<unknown>][] = [
      ["admin.users", () => caller.admin.users()],
      ["admin.tokens", () => caller.admin.tokens()],
      ["admin.createToken", () => caller.admin.createToken({ name: "mine", role: "admin" })],
      ["admin.revokeToken", () => caller.admin.revokeToken({ id })],
      ["admin.createUser", () => caller.admin.createUser({ email: "x@example.com", password: PASSWORD, role: "admin" })],
      ["admin.setUserRole", () => caller.admin.setUserRole({ userId: "whoever", role: "admin" })],
    ];
    for (const [path, call] of calls) {
      const r = await expectNothingWritten(f.db, call);
      expect(r.code).toBe("FORBIDDEN");
      expect(r.message).toBe(`role ${ACTORS[name].role} may not call ${path} (allowed: admin)`);
    }
    expect(count(f.db, "api_tokens", "revoked_at is null")).toBe(1);
  });
});
