import { queryAll } from "@/db/query";
import { asc, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { tokenUsage } from "@/db/schema";
import { loadSession } from "../session/load";
import { TokenSummaryInput, TokensOverTimeInput } from "./schemas";
import { parseInput } from "../parse-input";

export interface TokenSummary {
  by: "agent_type" | "agent_id" | "model";
  /** Largest first; `key` is null for rows that did not say (no agent id, no model). */
  groups: { key: string | null; tokens: number; entries: number }[];
  total: number;
}

const GROUP_COLUMN = { agent_type: tokenUsage.agentType, agent_id: tokenUsage.agentId, model: tokenUsage.model } as const;

/** Tokens per agent type, agent id or model, with the session total (BAZINGA's `token-summary`). */
export async function tokenSummary(db: DbOrTx, raw: TokenSummaryInput): Promise<TokenSummary> {
  const input = parseInput(TokenSummaryInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const key = GROUP_COLUMN[input.by];
  const tokens = sql<number>`coalesce(sum(${tokenUsage.tokensEstimated}), 0)`.mapWith(Number);
  const groups = await queryAll(
    db
      .select({ key, tokens, entries: sql<number>`count(*)`.mapWith(Number) })
      .from(tokenUsage)
      .where(eq(tokenUsage.sessionId, input.sessionId))
      .groupBy(key)
      // Groups of equal tokens by key, the null key first: SQLite's default, not PostgreSQL's (nulls last).
      .orderBy(desc(tokens), sql`${key} asc nulls first`),
  );
  return { by: input.by, groups, total: groups.reduce((sum, group) => sum + group.tokens, 0) };
}

export interface TokenBucket {
  start: Date;
  tokens: number;
  /** Running total up to the end of this bucket. */
  cumulative: number;
  byAgentType: Record<string, number>;
}

const BUCKET_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/** Tokens per minute, hour or day (UTC), with a running total and a split by agent type, for charts. Empty buckets are omitted. */
export async function tokensOverTime(db: DbOrTx, raw: TokensOverTimeInput): Promise<TokenBucket[]> {
  const input = parseInput(TokensOverTimeInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const size = sql.raw(String(BUCKET_MS[input.bucket]));
  const start = sql<number>`(${tokenUsage.timestamp} / ${size}) * ${size}`.mapWith(Number);
  const rows = await queryAll(
    db
      .select({ start, agentType: tokenUsage.agentType, tokens: sql<number>`sum(${tokenUsage.tokensEstimated})`.mapWith(Number) })
      .from(tokenUsage)
      .where(eq(tokenUsage.sessionId, input.sessionId))
      .groupBy(start, tokenUsage.agentType)
      .orderBy(asc(start), asc(tokenUsage.agentType)),
  );
  const buckets: TokenBucket[] = [];
  let cumulative = 0;
  for (const row of rows) {
    let bucket = buckets[buckets.length - 1];
    if (!bucket || bucket.start.getTime() !== row.start) {
      bucket = { start: new Date(row.start), tokens: 0, cumulative, byAgentType: {} };
      buckets.push(bucket);
    }
    bucket.tokens += row.tokens;
    bucket.byAgentType[row.agentType] = row.tokens;
    cumulative += row.tokens;
    bucket.cumulative = cumulative;
  }
  return buckets;
}
