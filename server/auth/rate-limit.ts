import { sql } from "drizzle-orm";
import { type Db, writeTransaction } from "@/db/client";
import { rawGet, rawRun } from "@/db/query";

/** What better-auth asks of a rate-limit store (its `BetterAuthRateLimitStorage`). */
export interface RateLimitStore {
  consume(key: string, rule: { window: number; max: number }): Promise<{ allowed: boolean; retryAfter: number | null }>;
}

/** Rows whose window began longer ago than this are pruned (longer than any rule's window). */
const KEEP_MS = 60 * 60 * 1000;
/** How often one process prunes. */
const PRUNE_EVERY_MS = 60 * 1000;

/**
 * better-auth's rate limits counted in the ledger's database (`auth_rate_limits`) rather than in
 * each process's memory, so that every server on one database counts the same attempts: two
 * servers allow 5 sign-ins a minute per address between them, not 5 each.
 *
 * A fixed window per key: the first request opens it, each request in it adds one, and once the
 * rule's window has passed the next request opens a new one. Counting and deciding are one
 * upsert, atomic on both engines, so simultaneous requests through different servers cannot all
 * pass a stale count. A refused request is counted too: hammering does not shorten the wait.
 */
export function databaseRateLimits(db: Db, clock: () => number = Date.now): RateLimitStore {
  let prunedAt = 0;
  return {
    async consume(key, rule) {
      const now = clock();
      const windowMs = Math.round(rule.window * 1000);
      const prune = now - prunedAt >= PRUNE_EVERY_MS;
      if (prune) prunedAt = now;
      const row = await writeTransaction(db, async (tx) => {
        if (prune) await rawRun(tx, sql`delete from auth_rate_limits where window_start < ${now - KEEP_MS}`);
        const expired = sql`cast(${now} as bigint) - auth_rate_limits.window_start >= cast(${windowMs} as bigint)`;
        return rawGet<{ count: number | string; window_start: number | string }>(
          tx,
          sql`insert into auth_rate_limits (key, count, window_start) values (${key}, 1, cast(${now} as bigint))
              on conflict (key) do update set
                count = case when ${expired} then 1 else auth_rate_limits.count + 1 end,
                window_start = case when ${expired} then cast(${now} as bigint) else auth_rate_limits.window_start end
              returning count, window_start`,
        );
      });
      if (Number(row.count) <= rule.max) return { allowed: true, retryAfter: null };
      // `now` was read before the transaction; a request on another server may have opened the
      // window after that reading and committed first, so the window can begin after `now`. The
      // wait is still never longer than one window.
      const wait = Math.ceil((Number(row.window_start) + windowMs - now) / 1000);
      return { allowed: false, retryAfter: Math.min(Math.max(1, wait), Math.max(1, Math.ceil(rule.window))) };
    },
  };
}
