import { describe, expect, it } from "vitest";
import { createMemoryDb } from "@/db/client";
import { createCaller } from "./root";

const anonymous = (db = createMemoryDb(), sameOrigin = true) => ({ db, caller: createCaller({ db, actor: null, via: "none", sameOrigin }) });

describe("first-run setup", () => {
  it("lets the first visitor of a fresh install create the admin, once", async () => {
    const { db, caller } = anonymous();
    expect(await caller.setup.status()).toEqual({ needsSetup: true });
    const admin = await caller.setup.createFirstAdmin({ email: "Lead@Example.com", password: "correct horse battery" });
    expect(admin).toMatchObject({ email: "lead@example.com", role: "admin" });
    expect(await caller.setup.status()).toEqual({ needsSetup: false });
    await expect(caller.setup.createFirstAdmin({ email: "intruder@example.com", password: "another long password" })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("an admin already exists"),
    });
    const stored = db.$client.prepare("SELECT email, role FROM users").all();
    expect(stored).toEqual([{ email: "lead@example.com", role: "admin" }]);
    const hash = db.$client.prepare("SELECT password FROM auth_accounts").pluck().get() as string;
    expect(hash).not.toContain("correct horse battery");
  });

  it("refuses a short password or a malformed email naming the field, creating nobody", async () => {
    const { db, caller } = anonymous();
    await expect(caller.setup.createFirstAdmin({ email: "lead@example.com", password: "short" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("password"),
    });
    await expect(caller.setup.createFirstAdmin({ email: "not-an-email", password: "long enough password" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("email"),
    });
    expect(db.$client.prepare("SELECT count(*) FROM users").pluck().get()).toBe(0);
  });

  it("refuses to create the first admin from another site (csrf)", async () => {
    const { db, caller } = anonymous(createMemoryDb(), false);
    await expect(caller.setup.createFirstAdmin({ email: "evil@example.com", password: "long enough password" })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("csrf"),
    });
    expect(db.$client.prepare("SELECT count(*) FROM users").pluck().get()).toBe(0);
  });
});
