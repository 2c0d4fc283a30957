import { queryGet, queryRun } from "@/db/query";
import { eq } from "drizzle-orm";
import { purges } from "@/db/schema";
import { ConflictError, ValidationError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { hostileInputError } from "@/server/domain/input-guard";
import { parseInput } from "../parse-input";
import { PurgeInput } from "./schemas";
import { PURGE_SCOPE } from "./scope";
import { authorize } from "@/server/domain/permissions";
import { type ProgressListener, noProgress } from "../progress";

export const PURGED_EVENT = "ledger.purged";

export interface PurgeResult {
  /** The `purges` row that recorded it (null on a dry run). */
  purgeId: number | null;
  dryRun: boolean;
  before: Date;
  sessions: string[];
  /** Rows removed (or, on a dry run, that would be) per table. */
  rows: Record<string, number>;
}

export interface PurgeOptions {
  /**
   * Called after each table's rows are removed ("purging", in rows; not on a dry run). The rows are
   * counted first to give the total, about a twentieth of the time the deletes take.
   */
  onProgress?: ProgressListener;
}

/**
 * Retention: remove the sessions that ended before `before` (never an active one) and every row
 * under them, through the one path the triggers allow — a `purges` row that is open while the
 * deletes run and finished, with the count, in the same transaction, plus a `ledger.purged`
 * event with every table's count. All or nothing. A dry run counts and writes nothing.
 */
export async function purgeSessions(ctx: ServiceContext, raw: PurgeInput, options: PurgeOptions = {}): Promise<PurgeResult> {
  authorize(ctx.actor, "purge");
  // Not reached through the API (a local-only command), so the API's guard is applied here.
  const hostile = hostileInputError(raw);
  if (hostile) throw hostile;
  const input = parseInput(PurgeInput, raw, "purge.invalid_input");
  const now = nowOf(ctx);
  if (input.before.getTime() > now.getTime()) throw new ValidationError("before", "purge.before_future", "must not be in the future");
  const sqlite = ctx.db.$client;
  return write(ctx, async (tx) => {
    const sessions = sqlite
      .prepare("SELECT id FROM sessions WHERE status <> 'active' AND ended_at IS NOT NULL AND ended_at < ? ORDER BY started_at, id")
      .pluck()
      .all(input.before.getTime()) as string[];
    const ids = JSON.stringify(sessions);
    const rows: Record<string, number> = {};
    if (input.dryRun || sessions.length === 0) {
      for (const { table, where } of PURGE_SCOPE)
        rows[table] = sessions.length === 0 ? 0 : (sqlite.prepare(`SELECT count(*) FROM ${table} WHERE ${where}`).pluck().get({ ids }) as number);
      return { purgeId: null, dryRun: input.dryRun, before: input.before, sessions, rows };
    }
    const reason = input.reason ?? `retention: sessions ended before ${input.before.toISOString()}`;
    const purge = await queryGet(tx.insert(purges).values({ startedAt: now, actor: ctx.actor.label, before: input.before, reason }).returning());
    // Goals, attempts, worktrees and branches refer to each other both ways; checked at commit.
    sqlite.pragma("defer_foreign_keys = ON");
    // A table's count includes the rows an earlier table's delete took with it (ON DELETE CASCADE), which
    // `changes` leaves out: progress adds counts, so it ends at the total.
    // A caller that shows nothing (--quiet, --json: the display hands out noProgress) is spared the count.
    const report = options.onProgress === noProgress ? undefined : options.onProgress;
    const counted = report
      ? PURGE_SCOPE.map(({ table, where }) => sqlite.prepare(`SELECT count(*) FROM ${table} WHERE ${where}`).pluck().get({ ids }) as number)
      : [];
    const total = counted.reduce((a, b) => a + b, 0);
    let done = 0;
    report?.({ phase: "purging", done, total, unit: "rows" });
    for (const [i, { table, where }] of PURGE_SCOPE.entries()) {
      rows[table] = sqlite.prepare(`DELETE FROM ${table} WHERE ${where}`).run({ ids }).changes;
      done += counted[i] ?? 0;
      report?.({ phase: "purging", done, total, unit: "rows" });
    }
    const dangling = sqlite.pragma("foreign_key_check") as { table: string; rowid: number; parent: string }[];
    if (dangling.length > 0) {
      const named = dangling
        .slice(0, 5)
        .map((d) => `${d.table} row ${d.rowid} → ${d.parent}`)
        .join(", ");
      throw new ConflictError("purge.still_referenced", `rows outside the purged sessions refer to rows under them (${named}); nothing was purged`);
    }
    await queryRun(
      tx
        .update(purges)
        .set({ finishedAt: nowOf(ctx), sessionsDeleted: sessions.length })
        .where(eq(purges.id, purge.id)),
    );
    await appendEvent(tx, ctx, {
      type: PURGED_EVENT,
      sessionId: null,
      entity: "purge",
      entityId: purge.id,
      data: { before: input.before.toISOString(), reason, sessions, rows },
    });
    return { purgeId: purge.id, dryRun: false, before: input.before, sessions, rows };
  });
}
