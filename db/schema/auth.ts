import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ROLES } from "@/server/domain/actors";
import { createdAt, inList, nowMs, timestampMs } from "./columns";

// People sign in through better-auth (email + password); these are its four models under names
// that do not collide with the ledger's `sessions`. Agents and scripts use `api_tokens`.

export const HUMAN_USER_ROLES = ["viewer", "lead", "admin"] as const;

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
    image: text("image"),
    role: text("role", { enum: HUMAN_USER_ROLES }).notNull().default("viewer"),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("users_email_idx").on(t.email), check("users_role_check", sql`${t.role} in (${inList(HUMAN_USER_ROLES)})`)],
);

export const authSessions = sqliteTable(
  "auth_sessions",
  {
    id: text("id").primaryKey(),
    expiresAt: timestampMs("expires_at").notNull(),
    token: text("token").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("auth_sessions_token_idx").on(t.token), index("auth_sessions_user_id_idx").on(t.userId)],
);

export const authAccounts = sqliteTable(
  "auth_accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: timestampMs("access_token_expires_at"),
    refreshTokenExpiresAt: timestampMs("refresh_token_expires_at"),
    scope: text("scope"),
    /** A password hash written by better-auth (scrypt); never a password. */
    password: text("password"),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
  },
  (t) => [index("auth_accounts_user_id_idx").on(t.userId)],
);

export const authVerifications = sqliteTable("auth_verifications", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: timestampMs("expires_at").notNull(),
  createdAt: createdAt(),
  updatedAt: timestampMs("updated_at").notNull().default(nowMs),
});

/**
 * Requests per client address and auth path in the current window (sign-in attempts above all),
 * kept in the database so that every server on it counts the same attempts: with several servers
 * on one PostgreSQL database, a limit kept in each process's memory would allow that many times
 * the attempts. Written by one atomic upsert (server/auth/rate-limit.ts); rows whose window ended
 * an hour ago are pruned.
 */
export const authRateLimits = sqliteTable(
  "auth_rate_limits",
  {
    /** better-auth's key: the client address and the path (`203.0.113.7|/sign-in/email`). */
    key: text("key").primaryKey(),
    count: integer("count").notNull(),
    /** Epoch milliseconds when the current window began. */
    windowStart: integer("window_start").notNull(),
  },
  (t) => [index("auth_rate_limits_window_start_idx").on(t.windowStart)],
);

/**
 * API tokens, shown once and stored as a SHA-256 hash. An agent token (no owner) has one role of
 * its own; a personal token belongs to a person and has none: it acts with its owner's role as it
 * is at each request, so demoting the person demotes their tokens.
 */
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    /** The agent token's role; null for a personal token (its owner's role counts). */
    role: text("role", { enum: ROLES }),
    /** SHA-256 of the token (tokens are 256-bit random, so a fast hash is enough). */
    tokenHash: text("token_hash").notNull(),
    /** The first characters, to recognise a token in lists without revealing it. */
    prefix: text("prefix").notNull(),
    /** The human who owns a personal token; null for agent tokens. */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestampMs("last_used_at"),
    expiresAt: timestampMs("expires_at"),
    revokedAt: timestampMs("revoked_at"),
  },
  (t) => [
    uniqueIndex("api_tokens_token_hash_idx").on(t.tokenHash),
    index("api_tokens_user_id_idx")
      .on(t.userId)
      .where(sql`${t.userId} IS NOT NULL`),
    check("api_tokens_role_check", sql`${t.role} in (${inList(ROLES)})`),
    check("api_tokens_owner_or_role_check", sql`(${t.userId} IS NULL) = (${t.role} IS NOT NULL)`),
  ],
);
