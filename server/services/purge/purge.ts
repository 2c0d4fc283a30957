import { queryGet, queryRun, rawAll, rawGet, rawRun, sqlFor } from "@/db/query";
import { type SQL, eq, sql } from "drizzle-orm";
import { type DbOrTx, engineOf } from "@/db/client";
import { pgErrorOf } from "@/db/pg/errors";
import { purges } from "@/db/schema";
import { ConflictError, ValidationError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { hostileInputError } from "@/server/domain/input-guard";
import { parseInput } from "../parse-input";
import { PurgeInput } from "./schemas";
import { IDS, PURGE_SCOPE } from "./scope";
import { authorize } from "@/server/domain/permissions";
import type { ProgressListener } from "../progress";

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
   * counted first (about a twentieth of the time the deletes take): the total, and the counts the
   * result and the event report.
   */
  onProgress?: ProgressListener;
}

/** The purged sessions' ids as a subquery over one bound JSON array (one parameter, however many sessions). */
function sessionIdsSql(db: DbOrTx, ids: string): SQL {
  return sqlFor(db, { sqlite: sql`SELECT value FROM json_each(${ids})`, postgres: sql`SELECT jsonb_array_elements_text(${ids}::jsonb)` });
}

/** A scope's `where`, with the purged sessions' ids put in. */
function whereSql(where: string, ids: SQL): SQL {
  return sql.join(
    where.split(IDS).map((part) => sql.raw(part)),
    sql`(${ids})`,
  );
}

/**
 * On PostgreSQL a foreign key is checked at the end of each statement (none is deferrable), and
 * goals → attempts → worktrees → branches → goals refer to each other both ways: those four tables
 * go in one statement (data-modifying CTEs), SQLite's `defer_foreign_keys` otherwise.
 */
const PG_TOGETHER = ["attempts", "worktrees", "branches", "goals"];

const count = async (db: DbOrTx, table: string, where: SQL) =>
  Number((await rawGet<{ n: number | string }>(db, sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE ${where}`)).n);

/**
 * Retention: remove the sessions that ended before `before` (never an active one) and every row
 * under them, through the one path the triggers allow — a `purges` row that is open while the
 * deletes run and finished, with the count, in the same transaction, plus a `ledger.purged`
 * event with every table's count. All or nothing. A dry run counts and writes nothing. On either
 * engine.
 */
export async function purgeSessions(ctx: ServiceContext, raw: PurgeInput, options: PurgeOptions = {}): Promise<PurgeResult> {
  authorize(ctx.actor, "purge");
  // Not reached through the API (a local-only command), so the API's guard is applied here.
  const hostile = hostileInputError(raw);
  if (hostile) throw hostile;
  const input = parseInput(PurgeInput, raw, "purge.invalid_input");
  const now = nowOf(ctx);
  if (input.before.getTime() > now.getTime()) throw new ValidationError("before", "purge.before_future", "must not be in the future");
  return write(ctx, async (tx) => {
    const sessions = (
      await rawAll<{ id: string }>(
        tx,
        sql`SELECT id FROM sessions WHERE status <> 'active' AND ended_at IS NOT NULL AND ended_at < ${input.before.getTime()} ORDER BY started_at, id`,
      )
    ).map((row) => row.id);
    const ids = sessionIdsSql(tx, JSON.stringify(sessions));
    const scope = PURGE_SCOPE.map(({ table, where }) => ({ table, where: whereSql(where, ids) }));
    // Each table's rows under the purged sessions, counted before anything is deleted: what a dry run
    // reports, and what the event records as gone. A DELETE's own count would leave out the rows ON
    // DELETE CASCADE took with another table's (a sub-goal with its parent); nothing else writes inside
    // this transaction. Progress adds them, so it ends at the total.
    const rows: Record<string, number> = {};
    for (const { table, where } of scope) rows[table] = sessions.length === 0 ? 0 : await count(tx, table, where);
    if (input.dryRun || sessions.length === 0) return { purgeId: null, dryRun: input.dryRun, before: input.before, sessions, rows };
    const reason = input.reason ?? `retention: sessions ended before ${input.before.toISOString()}`;
    const purge = await queryGet(tx.insert(purges).values({ startedAt: now, actor: ctx.actor.label, before: input.before, reason }).returning());
    const postgres = engineOf(tx) === "postgres";
    // Goals, attempts, worktrees and branches refer to each other both ways; checked at commit.
    if (!postgres) await rawRun(tx, sql`PRAGMA defer_foreign_keys = ON`);
    const report = options.onProgress;
    const total = Object.values(rows).reduce((a, b) => a + b, 0);
    let done = 0;
    const deleted = (table: string) => {
      done += rows[table]!;
      report?.({ phase: "purging", done, total, unit: "rows" });
    };
    report?.({ phase: "purging", done, total, unit: "rows" });
    try {
      for (const { table, where } of scope) {
        if (postgres && PG_TOGETHER.includes(table)) {
          if (table !== PG_TOGETHER[0]) continue;
          const together = scope.filter((t) => PG_TOGETHER.includes(t.table));
          // Data-modifying CTEs all run, to completion, whether the query reads them or not.
          const deletes = together.map((t) => sql`${sql.raw(`d_${t.table}`)} AS (DELETE FROM ${sql.raw(t.table)} WHERE ${t.where})`);
          await rawRun(tx, sql`WITH ${sql.join(deletes, sql`, `)} SELECT 1`);
          for (const t of together) deleted(t.table);
          continue;
        }
        await rawRun(tx, sql`DELETE FROM ${sql.raw(table)} WHERE ${where}`);
        deleted(table);
      }
    } catch (error) {
      const pg = pgErrorOf(error);
      if (pg?.code === "23503") throw stillReferenced(`${pg.message}: ${(pg as { detail?: string }).detail ?? ""}`.replace(/: $/, ""));
      throw error;
    }
    if (!postgres) {
      const dangling = await rawAll<{ table: string; rowid: number; parent: string }>(tx, sql`PRAGMA foreign_key_check`);
      if (dangling.length > 0) {
        throw stillReferenced(
          dangling
            .slice(0, 5)
            .map((d) => `${d.table} row ${d.rowid} → ${d.parent}`)
            .join(", "),
        );
      }
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

/** A row outside the purged sessions refers to a row under them (on PostgreSQL, the foreign key's own refusal says which). */
function stillReferenced(named: string): ConflictError {
  return new ConflictError("purge.still_referenced", `rows outside the purged sessions refer to rows under them (${named}); nothing was purged`);
}
