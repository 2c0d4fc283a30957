import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db/client";
import { prepared } from "@/db/prepared";
import { apiTokens } from "@/db/schema";
import { type Actor, ROLES } from "@/server/domain/actors";
import { NotFoundError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { parseInput } from "../parse-input";
import { Label } from "../schemas-common";
import { authorize } from "@/server/domain/permissions";

export const CreateTokenInput = z.object({ name: Label, role: z.enum(ROLES), expiresInDays: z.number().int().min(1).max(3650).optional() }).strict();
export type CreateTokenInput = z.infer<typeof CreateTokenInput>;

export const RevokeTokenInput = z.object({ id: z.number().int().min(1) }).strict();
export type RevokeTokenInput = z.infer<typeof RevokeTokenInput>;

export const TOKEN_PREFIX = "pg_";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Create an API token. The plaintext is returned once and never stored; only its hash is. */
export function createToken(ctx: ServiceContext, raw: CreateTokenInput): { id: number; token: string; name: string; role: string; prefix: string } {
  authorize(ctx.actor, "admin.tokens", "create API tokens");
  const input = parseInput(CreateTokenInput, raw, "admin.invalid_input");
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return write(ctx, (tx) => {
    const now = nowOf(ctx);
    const row = tx
      .insert(apiTokens)
      .values({
        name: input.name,
        role: input.role,
        tokenHash: hashToken(token),
        prefix: token.slice(0, 10),
        createdBy: ctx.actor.label,
        createdAt: now,
        expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * 86_400_000) : null,
      })
      .returning()
      .get();
    appendEvent(tx, ctx, { type: "admin.token_created", sessionId: null, entity: "api_token", entityId: row.id, data: { name: row.name, role: row.role } });
    return { id: row.id, token, name: row.name, role: row.role, prefix: row.prefix };
  });
}

export function listTokens(db: DbOrTx) {
  return db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      role: apiTokens.role,
      prefix: apiTokens.prefix,
      createdBy: apiTokens.createdBy,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      expiresAt: apiTokens.expiresAt,
      revokedAt: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .orderBy(desc(apiTokens.id))
    .all();
}

export function revokeToken(ctx: ServiceContext, raw: RevokeTokenInput): void {
  authorize(ctx.actor, "admin.tokens", "revoke API tokens");
  const input = parseInput(RevokeTokenInput, raw, "admin.invalid_input");
  write(ctx, (tx) => {
    const row = tx
      .update(apiTokens)
      .set({ revokedAt: nowOf(ctx) })
      .where(and(eq(apiTokens.id, input.id), isNull(apiTokens.revokedAt)))
      .returning()
      .get();
    if (!row) throw new NotFoundError("active API token", input.id);
    appendEvent(tx, ctx, { type: "admin.token_revoked", sessionId: null, entity: "api_token", entityId: row.id, data: { name: row.name } });
  });
}

const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The actor a bearer token stands for, or null when it is unknown, revoked or expired. Every
 * request with a token asks, so the lookup is one indexed read through a statement prepared once
 * per connection, and nothing is cached: a revocation or an expiry counts from the next request.
 * The last-used time is kept to the minute, so a busy agent does not write on every request.
 */
export function authenticateToken(db: Db, token: string, agentLabel?: string, now = new Date()): Actor | null {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const byHash = prepared(db, "api_tokens.by_hash", () =>
    db
      .select()
      .from(apiTokens)
      .where(eq(apiTokens.tokenHash, sql.placeholder("tokenHash")))
      .prepare(),
  );
  const row = byHash.get({ tokenHash: hashToken(token) });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, row.id)).run();
  }
  return { principalId: `token:${row.id}`, principalKind: "token", role: row.role, label: agentLabel?.trim() || row.name };
}
