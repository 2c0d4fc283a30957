import { queryAll, queryGet } from "@/db/query";
import { and, count, desc, eq, gt, isNull, or } from "drizzle-orm";
import { z } from "zod";
import { apiTokens, users } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { authorize } from "@/server/domain/permissions";
import { assertMayCreatePersonalToken, tokenOwnerOf } from "@/server/domain/personal-tokens";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { parseInput } from "../parse-input";
import { Label } from "../schemas-common";
import { newTokenText } from "../admin/tokens";

export const CreatePersonalTokenInput = z.object({ name: Label, expiresInDays: z.number().int().min(1).max(3650).optional() }).strict();
export type CreatePersonalTokenInput = z.infer<typeof CreatePersonalTokenInput>;

export const RevokePersonalTokenInput = z.object({ id: z.number().int().min(1) }).strict();
export type RevokePersonalTokenInput = z.infer<typeof RevokePersonalTokenInput>;

export interface NewPersonalToken {
  id: number;
  /** The token's text: returned this once, never stored (only its hash is). */
  token: string;
  name: string;
  prefix: string;
  expiresAt: Date | null;
}

/**
 * Create a personal API token for the signed-in person: it acts as them, with their role at each
 * request. The plaintext is returned once; only its hash is stored.
 */
export async function createPersonalToken(ctx: ServiceContext, raw: CreatePersonalTokenInput): Promise<NewPersonalToken> {
  authorize(ctx.actor, "account.createToken");
  const input = parseInput(CreatePersonalTokenInput, raw, "account.invalid_input");
  const { token, tokenHash, prefix } = newTokenText();
  return write(ctx, async (tx) => {
    const now = nowOf(ctx);
    const userId = tokenOwnerOf(ctx.actor);
    if (!(await queryGet(tx.select({ id: users.id }).from(users).where(eq(users.id, userId))))) throw new NotFoundError("user", userId);
    const active =
      (
        await queryGet(
          tx
            .select({ n: count() })
            .from(apiTokens)
            .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt), or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, now)))),
        )
      )?.n ?? 0;
    assertMayCreatePersonalToken(ctx.actor, active);
    const row = await queryGet(
      tx
        .insert(apiTokens)
        .values({
          name: input.name,
          role: null,
          userId,
          tokenHash,
          prefix,
          createdBy: ctx.actor.label,
          createdAt: now,
          expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null,
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: "account.token_created",
      sessionId: null,
      entity: "api_token",
      entityId: row.id,
      data: { name: row.name, ...(row.expiresAt ? { expiresAt: row.expiresAt.toISOString() } : {}) },
    });
    return { id: row.id, token, name: row.name, prefix: row.prefix, expiresAt: row.expiresAt };
  });
}

/** The caller's own personal tokens, newest first (never their text or hash). */
export async function listPersonalTokens(ctx: ServiceContext) {
  authorize(ctx.actor, "account.tokens");
  const userId = tokenOwnerOf(ctx.actor);
  return await queryAll(
    ctx.db
      .select({
        id: apiTokens.id,
        name: apiTokens.name,
        prefix: apiTokens.prefix,
        createdAt: apiTokens.createdAt,
        lastUsedAt: apiTokens.lastUsedAt,
        expiresAt: apiTokens.expiresAt,
        revokedAt: apiTokens.revokedAt,
      })
      .from(apiTokens)
      .where(eq(apiTokens.userId, userId))
      .orderBy(desc(apiTokens.id)),
  );
}

/**
 * Revoke one of the caller's own personal tokens; it stops working at the next request. Another
 * person's token is "not found", as an unknown id is: its existence is not the caller's business
 * (an admin revokes anyone's in Settings → API tokens).
 */
export async function revokePersonalToken(ctx: ServiceContext, raw: RevokePersonalTokenInput): Promise<void> {
  authorize(ctx.actor, "account.revokeToken");
  const input = parseInput(RevokePersonalTokenInput, raw, "account.invalid_input");
  const userId = tokenOwnerOf(ctx.actor);
  await write(ctx, async (tx) => {
    const row = await queryGet(
      tx
        .update(apiTokens)
        .set({ revokedAt: nowOf(ctx) })
        .where(and(eq(apiTokens.id, input.id), eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
        .returning(),
    );
    if (!row) throw new NotFoundError("active personal API token", input.id);
    await appendEvent(tx, ctx, { type: "account.token_revoked", sessionId: null, entity: "api_token", entityId: row.id, data: { name: row.name } });
  });
}
