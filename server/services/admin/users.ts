import { queryAll, queryGet, queryRun } from "@/db/query";
import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { count, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx, Tx } from "@/db/client";
import { HUMAN_USER_ROLES, authAccounts, users } from "@/db/schema";
import { ConflictError, ForbiddenTransitionError, NotFoundError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { authorize, authorizeCredentialWrite } from "@/server/domain/permissions";
import { parseInput } from "../parse-input";

export const CreateUserInput = z
  .object({
    email: z.string().trim().toLowerCase().email("must be an email address").max(320),
    password: z.string().min(10, "must be at least 10 characters").max(256),
    name: z.string().trim().min(1).max(200).optional(),
    role: z.enum(HUMAN_USER_ROLES),
  })
  .strict();
export type CreateUserInput = z.infer<typeof CreateUserInput>;

export type UserSummary = Pick<typeof users.$inferSelect, "id" | "email" | "name" | "role" | "createdAt">;

/** Create a person who signs in with email and password (admin only). The password is hashed by better-auth's scrypt. */
export async function createUser(ctx: ServiceContext, raw: CreateUserInput): Promise<UserSummary> {
  authorize(ctx.actor, "admin.users", "create users");
  authorizeCredentialWrite(ctx.actor, "admin.users", "create users");
  const input = parseInput(CreateUserInput, raw, "admin.invalid_input");
  const hash = await hashPassword(input.password);
  return write(ctx, async (tx) => insertUser(tx, ctx, input, hash));
}

/**
 * First run: a fresh install has no users, and the first account created is the admin. Refused
 * once any user exists, checked inside the write transaction so two first visits cannot both win.
 */
/** The first admin's input: a user's, without the role (it is admin). */
export const CreateFirstAdminInput = CreateUserInput.omit({ role: true });
export type CreateFirstAdminInput = z.infer<typeof CreateFirstAdminInput>;

export async function createFirstAdmin(db: Db, raw: CreateFirstAdminInput, now = new Date()): Promise<UserSummary> {
  const input = parseInput(CreateFirstAdminInput, raw, "admin.invalid_input");
  const hash = await hashPassword(input.password);
  const ctx: ServiceContext = { db, actor: { principalId: "setup", principalKind: "operator", role: "admin", label: input.email }, now: () => now };
  return write(ctx, async (tx) => {
    if ((await userCount(tx)) > 0) throw new ForbiddenTransitionError("setup.already_done", "an admin already exists: sign in instead");
    return insertUser(tx, ctx, { ...input, role: "admin" }, hash);
  });
}

async function insertUser(tx: Tx, ctx: ServiceContext, input: CreateUserInput, passwordHash: string): Promise<UserSummary> {
  if (await queryGet(tx.select({ id: users.id }).from(users).where(eq(users.email, input.email)))) {
    throw new ConflictError("admin.user_exists", `a user with email ${input.email} already exists`);
  }
  const now = nowOf(ctx);
  const id = randomUUID();
  const user = await queryGet(
    tx
      .insert(users)
      .values({
        id,
        email: input.email,
        name: input.name ?? input.email.split("@")[0] ?? input.email,
        role: input.role,
        emailVerified: true,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: users.id, email: users.email, name: users.name, role: users.role, createdAt: users.createdAt }),
  );
  await queryRun(
    tx
      .insert(authAccounts)
      .values({ id: randomUUID(), accountId: id, providerId: "credential", userId: id, password: passwordHash, createdAt: now, updatedAt: now }),
  );
  await appendEvent(tx, ctx, { type: "admin.user_created", sessionId: null, entity: "user", entityId: id, data: { email: user.email, role: user.role } });
  return user;
}

export async function userCount(db: DbOrTx): Promise<number> {
  return (await queryGet(db.select({ n: count() }).from(users)))?.n ?? 0;
}

export async function listUsers(db: DbOrTx): Promise<UserSummary[]> {
  return await queryAll(
    db.select({ id: users.id, email: users.email, name: users.name, role: users.role, createdAt: users.createdAt }).from(users).orderBy(desc(users.createdAt)),
  );
}

export const SetUserRoleInput = z.object({ userId: z.string().min(1).max(100), role: z.enum(HUMAN_USER_ROLES) }).strict();

/** Change a person's role (admin only); an admin cannot demote the last admin. */
export async function setUserRole(ctx: ServiceContext, raw: z.infer<typeof SetUserRoleInput>): Promise<UserSummary> {
  authorize(ctx.actor, "admin.users", "change roles");
  authorizeCredentialWrite(ctx.actor, "admin.users", "change roles");
  const input = parseInput(SetUserRoleInput, raw, "admin.invalid_input");
  return write(ctx, async (tx) => {
    const user = await queryGet(tx.select().from(users).where(eq(users.id, input.userId)));
    if (!user) throw new NotFoundError("user", input.userId);
    if (user.role === "admin" && input.role !== "admin") {
      const admins = (await queryGet(tx.select({ n: count() }).from(users).where(eq(users.role, "admin"))))?.n ?? 0;
      if (admins <= 1) throw new ForbiddenTransitionError("admin.last_admin", "the last admin cannot be demoted");
    }
    const updated = (await queryGet(
      tx
        .update(users)
        .set({ role: input.role, updatedAt: nowOf(ctx) })
        .where(eq(users.id, user.id))
        .returning({ id: users.id, email: users.email, name: users.name, role: users.role, createdAt: users.createdAt }),
    ))!;
    await appendEvent(tx, ctx, {
      type: "admin.user_role_changed",
      sessionId: null,
      entity: "user",
      entityId: user.id,
      data: { from: user.role, to: input.role },
    });
    return updated;
  });
}
