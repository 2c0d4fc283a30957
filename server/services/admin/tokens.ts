import { queryAll, queryGet, queryRun } from "@/db/query";
import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db/client";
import { prepared } from "@/db/prepared";
import { apiTokens, users } from "@/db/schema";
import { type Actor, ROLES, type Role } from "@/server/domain/actors";
import { NotFoundError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { parseInput } from "../parse-input";
import { Label } from "../schemas-common";
import { authorize, authorizeCredentialWrite } from "@/server/domain/permissions";

export const CreateTokenInput = z.object({ name: Label, role: z.enum(ROLES), expiresInDays: z.number().int().min(1).max(3650).optional() }).strict();
export type CreateTokenInput = z.infer<typeof CreateTokenInput>;

export const RevokeTokenInput = z.object({ id: z.number().int().min(1) }).strict();
export type RevokeTokenInput = z.infer<typeof RevokeTokenInput>;

export const TOKEN_PREFIX = "pg_";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new token's text (256 random bits), its hash and the prefix lists show. */
export function newTokenText(): { token: string; tokenHash: string; prefix: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, tokenHash: hashToken(token), prefix: token.slice(0, 10) };
}

/** Create an API token. The plaintext is returned once and never stored; only its hash is. */
export async function createToken(
  ctx: ServiceContext,
  raw: CreateTokenInput,
): Promise<{ id: number; token: string; name: string; role: string; prefix: string }> {
  authorize(ctx.actor, "admin.tokens", "create API tokens");
  authorizeCredentialWrite(ctx.actor, "admin.tokens", "create API tokens");
  const input = parseInput(CreateTokenInput, raw, "admin.invalid_input");
  const { token, tokenHash, prefix } = newTokenText();
  return write(ctx, async (tx) => {
    const now = nowOf(ctx);
    const row = await queryGet(
      tx
        .insert(apiTokens)
        .values({
          name: input.name,
          role: input.role,
          tokenHash,
          prefix,
          createdBy: ctx.actor.label,
          createdAt: now,
          expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null,
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: "admin.token_created",
      sessionId: null,
      entity: "api_token",
      entityId: row.id,
      data: { name: row.name, role: row.role },
    });
    return { id: row.id, token, name: row.name, role: input.role, prefix: row.prefix };
  });
}

/**
 * Every token, agent and personal, newest first. A personal token has no role of its own: `role`
 * is its owner's current role (what it acts with), and `owner` names the person.
 */
export async function listTokens(db: DbOrTx) {
  return await queryAll(
    db
      .select({
        id: apiTokens.id,
        name: apiTokens.name,
        role: sql<Role>`coalesce(${apiTokens.role}, ${users.role})`,
        prefix: apiTokens.prefix,
        /** The person a personal token belongs to; null for an agent token. */
        owner: users.email,
        createdBy: apiTokens.createdBy,
        createdAt: apiTokens.createdAt,
        lastUsedAt: apiTokens.lastUsedAt,
        expiresAt: apiTokens.expiresAt,
        revokedAt: apiTokens.revokedAt,
      })
      .from(apiTokens)
      .leftJoin(users, eq(users.id, apiTokens.userId))
      .orderBy(desc(apiTokens.id)),
  );
}

export async function revokeToken(ctx: ServiceContext, raw: RevokeTokenInput): Promise<void> {
  authorize(ctx.actor, "admin.tokens", "revoke API tokens");
  authorizeCredentialWrite(ctx.actor, "admin.tokens", "revoke API tokens");
  const input = parseInput(RevokeTokenInput, raw, "admin.invalid_input");
  await write(ctx, async (tx) => {
    const row = await queryGet(
      tx
        .update(apiTokens)
        .set({ revokedAt: nowOf(ctx) })
        .where(and(eq(apiTokens.id, input.id), isNull(apiTokens.revokedAt)))
        .returning(),
    );
    if (!row) throw new NotFoundError("active API token", input.id);
    const owner = row.userId ? (await queryGet(tx.select({ email: users.email }).from(users).where(eq(users.id, row.userId))))?.email : undefined;
    await appendEvent(tx, ctx, {
      type: "admin.token_revoked",
      sessionId: null,
      entity: "api_token",
      entityId: row.id,
      data: { name: row.name, ...(owner ? { owner } : {}) },
    });
  });
}

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The actor a bearer token stands for, or null when it is unknown, revoked or expired. Every
 * request with a token asks, so the lookup is one indexed read through a statement prepared once
 * per connection, and nothing is cached: a revocation, an expiry or a change of the owner's role
 * counts from the next request. The last-used time is kept to the minute, so a busy agent does not
 * write on every request.
 *
 * An agent token is its own principal (`token:<id>`) with its own role, labelled by the agent
 * label it sends or its name. A personal token is its owner: `user:<id>` with the person's role
 * now and their email as the label, as if they had signed in, with the token noted (`actor.token`,
 * recorded in `events.via`). A person who no longer exists has no tokens (they go with the user row).
 */
export async function authenticateToken(db: Db, token: string, agentLabel?: string, now = new Date()): Promise<Actor | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const byHash = prepared(db, "api_tokens.by_hash_with_owner", () =>
    db
      .select({ token: apiTokens, owner: { id: users.id, email: users.email, role: users.role } })
      .from(apiTokens)
      .leftJoin(users, eq(users.id, apiTokens.userId))
      .where(eq(apiTokens.tokenHash, sql.placeholder("tokenHash")))
      .prepare(),
  );
  const found = await byHash.get({ tokenHash: hashToken(token) });
  const row = found?.token;
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null;
  const owner = found.owner;
  if (row.userId !== null && owner === null) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await queryRun(db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.id)));
  }
  if (owner) return { principalId: `user:${owner.id}`, principalKind: "user", role: owner.role, label: owner.email, token: { id: row.id, name: row.name } };
  if (row.role === null) return null;
  return { principalId: `token:${row.id}`, principalKind: "token", role: row.role, label: agentLabel?.trim() || row.name };
}
