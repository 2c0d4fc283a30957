import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Counters for the analytics page, per UTC day × session source × agent × model and a figure's own
 * keys, so `analytics.overview` reads a few thousand small rows instead of pairing every claim with
 * its judgment. Kept current by the triggers of migration 0004 (db/enforcement.ts,
 * `analyticsRollupStatements`) in the transaction of every write, whoever makes it; rebuilt from the
 * history in SQL by the migration and after a purge. Read by server/services/analytics/rollups.ts.
 *
 * | figure     | a row counts (`n`)                            | day of          | agent      | model                 | k1          | k2             | k3      | total  |
 * |------------|-----------------------------------------------|-----------------|------------|-----------------------|-------------|----------------|---------|--------|
 * | claim      | claim moves                                   | the claim       | claimant   | claimant's (session)  |             |                |         |        |
 * | judged     | verify/block moves judging a claim move       | the claim       | claimant   | claimant's (session)  | move        | seconds waited |         |        |
 * | spell      | ended blocked spells                          | spell's start   | claimant judged | theirs (session) | exit move   | seconds        |         | ms     |
 * | reset      | approved resets (per task)                    | spell's start   | claimant judged | theirs (session) |             | task id        |         |        |
 * | check      | completion checks                             | the check       | who ran it |                       |             | accepted (0/1) |         |        |
 * | attempt    | implementation attempts (one row each)        | attempt start   |            | the attempt's         | outcome     | attempt number | goal id |        |
 * | breakdown  | breakdown attempts                            | attempt start   |            | the attempt's         |             |                |         |        |
 * | tokens     | token_usage rows                              | the row         | agent id   | the row's             | agent type  |                |         | tokens |
 *
 * Rows are never deleted by the triggers: a count that returns to 0 stays as a 0 row, which the
 * readers skip (`HAVING sum(n) > 0`).
 */
export const analyticsRollups = sqliteTable(
  "analytics_rollups",
  {
    figure: text("figure").notNull(),
    /** UTC midnight of the day, epoch ms. */
    day: integer("day").notNull(),
    source: text("source").notNull(),
    agent: text("agent"),
    model: text("model"),
    k1: text("k1"),
    k2: integer("k2"),
    k3: integer("k3"),
    n: integer("n").notNull().default(0),
    total: integer("total").notNull().default(0),
  },
  (t) => [
    // NULL keys are one group each, as GROUP BY treats them: the unique key maps NULL to char(0).
    uniqueIndex("analytics_rollups_key_idx").on(
      t.figure,
      t.day,
      t.source,
      sql`ifnull(${t.agent}, char(0))`,
      sql`ifnull(${t.model}, char(0))`,
      sql`ifnull(${t.k1}, char(0))`,
      sql`ifnull(${t.k2}, -1)`,
      sql`ifnull(${t.k3}, -1)`,
    ),
    index("analytics_rollups_figure_day_idx").on(t.figure, t.day, t.source, t.agent, t.model, t.k1, t.k2, t.k3, t.n, t.total),
  ],
);

/**
 * Rejected completion checks by the kind of reason they gave (server/services/analytics/shape.ts
 * `reasonKind`, which SQL cannot run), per day × source × who ran the check. Each check counts once
 * per kind; `example` is the kind's first wording in the earliest check (`example_check_id`).
 * Caught up from `completion_checks` (append-only) past the watermark in `analytics_rollup_state`
 * whenever the overview is read; reset by the purge trigger.
 */
export const analyticsReasonKinds = sqliteTable(
  "analytics_reason_kinds",
  {
    day: integer("day").notNull(),
    source: text("source").notNull(),
    agent: text("agent").notNull(),
    kind: text("kind").notNull(),
    checks: integer("checks").notNull().default(0),
    exampleCheckId: integer("example_check_id").notNull(),
    example: text("example").notNull(),
  },
  (t) => [uniqueIndex("analytics_reason_kinds_key_idx").on(t.day, t.source, t.agent, t.kind)],
);

/** Small bookkeeping values of the analytics rollups (the reason kinds' watermark). */
export const analyticsRollupState = sqliteTable("analytics_rollup_state", {
  name: text("name").primaryKey(),
  value: integer("value").notNull(),
});
