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
  (await rawGet<{ n: number }>(db, sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE ${where}`)).n;

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
    const rows: Record<string, number> = {};
    if (input.dryRun || sessions.length === 0) {
      for (const { table, where } of scope) rows[table] = sessions.length === 0 ? 0 : await count(tx, table, where);
      return { purgeId: null, dryRun: input.dryRun, before: input.before, sessions, rows };
    }
    const reason = input.reason ?? `retention: sessions ended before ${input.before.toISOString()}`;
    const purge = await queryGet(tx.insert(purges).values({ startedAt: now, actor: ctx.actor.label, before: input.before, reason }).returning());
    const postgres = engineOf(tx) === "postgres";
    // Goals, attempts, worktrees and branches refer to each other both ways; checked at commit.
    if (!postgres) await rawRun(tx, sql`PRAGMA defer_foreign_keys = ON`);
    // A table's count includes the rows an earlier table's delete took with it (ON DELETE CASCADE, as a
    // sub-goal goes with its parent on SQLite), which `changes` leaves out: progress adds counts, so it
    // ends at the total, and on SQLite the counts are what the event records as gone (nothing else
    // writes inside this transaction). On PostgreSQL the four tables' one statement counts every row
    // it deleted. A caller that shows nothing (--quiet, --json: the display hands out noProgress) is
    // spared the count on PostgreSQL.
    const report = options.onProgress === noProgress ? undefined : options.onProgress;
    const counted = new Map<string, number>();
    if (report || !postgres) for (const { table, where } of scope) counted.set(table, await count(tx, table, where));
    const total = [...counted.values()].reduce((a, b) => a + b, 0);
    let done = 0;
    report?.({ phase: "purging", done, total, unit: "rows" });
    try {
      for (const { table, where } of scope) {
        if (postgres && PG_TOGETHER.includes(table)) {
          if (table !== PG_TOGETHER[0]) continue;
          const together = scope.filter((t) => PG_TOGETHER.includes(t.table));
          const deletes = together.map((t) => sql`${sql.raw(`d_${t.table}`)} AS (DELETE FROM ${sql.raw(t.table)} WHERE ${t.where} RETURNING 1)`);
          const counts = together.map((t) => sql`(SELECT count(*) FROM ${sql.raw(`d_${t.table}`)}) AS ${sql.raw(t.table)}`);
          const [deleted] = await rawAll<Record<string, number>>(tx, sql`WITH ${sql.join(deletes, sql`, `)} SELECT ${sql.join(counts, sql`, `)}`);
          for (const t of together) {
            rows[t.table] = Number(deleted![t.table]);
            done += counted.get(t.table) ?? 0;
            report?.({ phase: "purging", done, total, unit: "rows" });
          }
          continue;
        }
        const { changes } = await rawRun(tx, sql`DELETE FROM ${sql.raw(table)} WHERE ${where}`);
        rows[table] = postgres ? changes : counted.get(table)!;
        done += counted.get(table) ?? 0;
        report?.({ phase: "purging", done, total, unit: "rows" });
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
