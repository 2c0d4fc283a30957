/**
 * A person's API token cannot make credentials (issue 30): an admin's personal token is refused
 * every write of admin.tokens, admin.users and admin.webhooks, naming the permission table's rule,
 * and nothing is written; the same admin signed in, and an agent token with the admin role, may.
 */
import { describe, expect, it } from "vitest";
import type { Actor } from "@/server/domain/actors";
import { CREDENTIALS_FROM_TOKEN_RULE } from "@/server/domain/permissions";
import { ACTORS, type Caller, expectNothingWritten, setup, tokenActor } from "@/test/support/api-helpers";

/** The admin as a personal token authenticates them: their principal, with the token noted. */
const ADMIN_BY_PERSONAL_TOKEN: Actor = { ...ACTORS.admin, token: { id: 7, name: "admin's script" } };

const WRITES: Record<string, (caller: Caller) => Promise<unknown>> = {
  "admin.createToken": (c) => c.admin.createToken({ name: "minted", role: "admin" }),
  "admin.revokeToken": (c) => c.admin.revokeToken({ id: 1 }),
  "admin.createUser": (c) => c.admin.createUser({ email: "new@example.com", password: "correct horse battery", role: "admin" }),
  "admin.setUserRole": (c) => c.admin.setUserRole({ userId: "lead-user", role: "admin" }),
  "admin.createWebhook": (c) => c.admin.createWebhook({ url: "https://receiver.invalid/hook", events: ["task.blocked"] }),
  "admin.removeWebhook": (c) => c.admin.removeWebhook({ id: 1 }),
  "admin.testWebhook": (c) => c.admin.testWebhook({ id: 1 }),
};

/** One agent token, one person (a lead) and one webhook, made by the signed-in admin. */
async function seeded() {
  const f = setup();
  const admin = f.as("admin");
  await admin.admin.createToken({ name: "developer_1", role: "agent" });
  const lead = await admin.admin.createUser({ email: "lead@example.com", password: "correct horse battery", role: "lead" });
  await admin.admin.createWebhook({ url: "https://receiver.invalid/hook", events: ["task.blocked"] });
  return { f, leadId: lead.id };
}

describe("an admin's personal token", () => {
  for (const [path, call] of Object.entries(WRITES)) {
    it(`is refused ${path} with FORBIDDEN naming ${CREDENTIALS_FROM_TOKEN_RULE}, and writes nothing`, async () => {
      const { f } = await seeded();
      const r = await expectNothingWritten(f.db, () => call(f.by(ADMIN_BY_PERSONAL_TOKEN)));
      expect(r.code).toBe("FORBIDDEN");
      expect(r.data.rule).toBe(CREDENTIALS_FROM_TOKEN_RULE);
      expect(r.message).toContain("admin's script");
    });
  }

  it("still reads what the admin role reads (tokens, users, webhooks)", async () => {
    const { f } = await seeded();
    const caller = f.by(ADMIN_BY_PERSONAL_TOKEN);
    expect(await caller.admin.tokens()).toHaveLength(1);
    expect(await caller.admin.users()).toHaveLength(1);
    expect(await caller.admin.webhooks()).toHaveLength(1);
  });
});

describe("the writes a personal token is refused", () => {
  it("are taken from the signed-in admin", async () => {
    const { f, leadId } = await seeded();
    const admin = f.as("admin");
    expect(await admin.admin.createToken({ name: "minted", role: "agent" })).toMatchObject({ name: "minted" });
    await admin.admin.revokeToken({ id: 1 });
    expect(await admin.admin.createUser({ email: "new@example.com", password: "correct horse battery", role: "viewer" })).toMatchObject({
      email: "new@example.com",
    });
    expect(await admin.admin.setUserRole({ userId: leadId, role: "admin" })).toMatchObject({ role: "admin" });
    expect(await admin.admin.createWebhook({ url: "https://receiver.invalid/other", events: ["task.blocked"] })).toMatchObject({ id: 2 });
    await admin.admin.removeWebhook({ id: 2 });
  });

  it("are taken from an agent token an admin made with the admin role", async () => {
    const { f, leadId } = await seeded();
    const agentAdmin = f.by(tokenActor(1, "admin", "ops_bot"));
    expect(await agentAdmin.admin.createToken({ name: "minted", role: "agent" })).toMatchObject({ name: "minted" });
    expect(await agentAdmin.admin.setUserRole({ userId: leadId, role: "viewer" })).toMatchObject({ role: "viewer" });
    expect(await agentAdmin.admin.createWebhook({ url: "https://receiver.invalid/other", events: ["task.blocked"] })).toMatchObject({ id: 2 });
  });
});
