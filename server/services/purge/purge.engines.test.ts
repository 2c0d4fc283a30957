/**
 * Retention on both engines: the recorded purge path removes the ended sessions and every row under
 * them, records itself and leaves a ledger the invariant checker finds clean; a dry run writes
 * nothing; a row outside the purge that refers into it stops the purge whole; outside a purge the
 * database itself refuses a raw DELETE of history. (purge.test.ts follows every foreign key of the
 * SQLite schema to prove the scope complete; here the same service runs on PostgreSQL too.)
 */
import { nextMillisecond } from "@/test/support/clock";
import { sql } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { rawGet, rawRun } from "@/db/query";
import { APPEND_ONLY_TABLES, PURGE_ONLY_DELETE_TABLES } from "@/db/enforcement";
import { operatorActor } from "@/server/domain/actors";
import { ACTORS, callerFor } from "@/test/support/api-helpers";
import { writeFullSession } from "@/test/support/check-ledger";
import { describeEngines, ledgerFactory } from "@/test/support/engines";
import { rowsOf, tableCountsOf } from "@/test/support/rows";
import { checkLedger } from "../check/run";
import type { ProgressUpdate } from "../progress";
import { PURGED_EVENT, purgeSessions } from "./purge";
import { PURGE_SCOPE } from "./scope";

const freshLedger = ledgerFactory();
const admin = (db: Db) => ({ db, actor: operatorActor("retention") });
/** A cutoff after everything written so far (a session that ended in this same millisecond did not end before it). */
const cutoffAfterNow = nextMillisecond;

function messagesOf(error: unknown): string {
  const messages: string[] = [];
  for (let current = error; current instanceof Error; current = current.cause) messages.push(current.message);
  return messages.join(" ← ");
}

describeEngines("purge", (engine) => {
  let db: Db;
  beforeEach(async () => {
    db = await freshLedger(engine);
  });

  it("removes the ended sessions and every row under them, through the recorded path, and leaves a ledger the checker finds clean", async () => {
    await writeFullSession(db, "old-1", { end: true });
    await writeFullSession(db, "old-2", { end: true });
    // A sub-goal created by a breakdown attempt: goals and attempts then refer to each other both ways.
    const orchestrator = callerFor(db, ACTORS.orchestrator);
    const parent = (await rawGet<{ id: number }>(db, sql`SELECT min(id) AS id FROM goals WHERE session_id = 'old-1'`)).id;
    const { attempt } = await orchestrator.attempt.start({ goalId: parent, model: "model-b", attemptType: "breakdown" });
    await orchestrator.attempt.finish({ attemptId: attempt.id, status: "completed" });
    await orchestrator.goal.create({ sessionId: "old-1", goalText: "Port //app", parentGoalId: parent, createdByAttemptId: attempt.id });
    await writeFullSession(db, "running", {});
    const cutoff = await cutoffAfterNow();
    await writeFullSession(db, "recent", { end: true });
    const before = await tableCountsOf(db);
    const progress: ProgressUpdate[] = [];
    const result = await purgeSessions(admin(db), { before: cutoff }, { onProgress: (update) => progress.push({ ...update }) });
    const after = await tableCountsOf(db);

    expect(result).toMatchObject({ dryRun: false, sessions: ["old-1", "old-2"] });
    // Every table's count is the rows that went from it (the purge's own event aside), the sub-goal its
    // parent's delete took with it (ON DELETE CASCADE on SQLite) included.
    for (const { table } of PURGE_SCOPE) {
      const added = table === "events" ? 1 : 0;
      expect(result.rows[table], table).toBe(before[table]! - after[table]! + added);
    }
    for (const table of [
      "task_transitions",
      "criterion_updates",
      "orchestration_logs",
      "tool_calls",
      "validation_runs",
      "merges",
      "attempts",
      "goals",
      "branches",
    ])
      expect(result.rows[table], table).toBeGreaterThan(0);
    const gone = PURGE_SCOPE.reduce((n, { table }) => n + before[table]! - after[table]!, 1);
    expect(progress[0]).toEqual({ phase: "purging", done: 0, total: gone, unit: "rows" });
    expect(progress.at(-1)).toEqual({ phase: "purging", done: gone, total: gone, unit: "rows" });
    expect(progress).toHaveLength(PURGE_SCOPE.length + 1);

    expect((await rowsOf<{ id: string }>(db, sql`SELECT id FROM sessions ORDER BY id`)).map((s) => s.id)).toEqual(["recent", "running"]);
    expect(await rowsOf(db, sql`SELECT count(*) AS n FROM events WHERE session_id IN ('old-1', 'old-2')`)).toEqual([{ n: 0 }]);
    expect(await rowsOf(db, sql`SELECT id, actor, sessions_deleted, finished_at IS NOT NULL AS finished FROM purges`)).toEqual([
      { id: result.purgeId, actor: "retention", sessions_deleted: 2, finished: engine === "postgres" ? true : 1 },
    ]);
    const event = await rawGet<{ entity_id: string; data: string }>(db, sql`SELECT entity_id, data FROM events WHERE type = ${PURGED_EVENT}`);
    expect(event.entity_id).toBe(String(result.purgeId));
    expect(JSON.parse(event.data)).toMatchObject({ rows: result.rows, sessions: result.sessions });
    const report = await checkLedger(db);
    expect(report.findings).toEqual([]);
    expect(report.checked.tasks).toBeGreaterThan(0);
  });

  it("a dry run counts what would go and writes nothing", async () => {
    await writeFullSession(db, "old", { end: true });
    const counts = await tableCountsOf(db);
    const before = await cutoffAfterNow();
    const dry = await purgeSessions(admin(db), { before, dryRun: true });
    expect(dry).toMatchObject({ purgeId: null, dryRun: true, sessions: ["old"] });
    expect(await tableCountsOf(db)).toEqual(counts);
    const real = await purgeSessions(admin(db), { before });
    expect(real.rows).toEqual(dry.rows);
  });

  it("is all or nothing: a row outside the purge that refers into it stops the purge, and nothing is removed", async () => {
    await writeFullSession(db, "old", { end: true });
    await callerFor(db, ACTORS.orchestrator).session.create({ id: "keeps-a-link" });
    const branch = (await rawGet<{ id: number }>(db, sql`SELECT min(id) AS id FROM branches WHERE session_id = 'old'`)).id;
    await rawRun(db, sql`INSERT INTO branches (session_id, name, parent_branch_id) VALUES ('keeps-a-link', 'fork', ${branch})`);
    const counts = await tableCountsOf(db);
    const error = await purgeSessions(admin(db), { before: await cutoffAfterNow() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ rule: "purge.still_referenced" });
    expect((error as Error).message).toMatch(
      engine === "sqlite"
        ? /^rows outside the purged sessions refer to rows under them \(branches row \d+ → branches\); nothing was purged$/
        : /^rows outside the purged sessions refer to rows under them \(.*violates foreign key constraint "branches_parent_branch_id_branches_id_fk" on table "branches": Key \(id\)=\(\d+\) is still referenced from table "branches"\.\); nothing was purged$/,
    );
    expect(await tableCountsOf(db)).toEqual(counts);
  });

  it("outside a purge, the database refuses a raw DELETE of every history and ledger table, and a purge record cannot be reopened or removed", async () => {
    await writeFullSession(db, "s", { end: true });
    await purgeSessions(admin(db), { before: await cutoffAfterNow() });
    await writeFullSession(db, "t", { end: true });
    await purgeSessions(admin(db), { before: await cutoffAfterNow() });
    await writeFullSession(db, "u");
    for (const table of [...APPEND_ONLY_TABLES, ...PURGE_ONLY_DELETE_TABLES]) {
      const count = async () => (await rawGet<{ n: number }>(db, sql`SELECT count(*) AS n FROM ${sql.raw(table)}`)).n;
      const n = await count();
      expect(n, table).toBeGreaterThan(0);
      const refused = await rawRun(db, sql`DELETE FROM ${sql.raw(table)}`).catch((e: unknown) => e);
      expect(messagesOf(refused), table).toMatch(/(^| ← )(append_only|purge_only|goal_contract\.immutable): /);
      expect(await count(), table).toBe(n);
    }
    expect(messagesOf(await rawRun(db, sql`UPDATE purges SET finished_at = NULL`).catch((e: unknown) => e))).toMatch(
      /(^| ← )append_only: a purge record can only be marked finished, once/,
    );
    expect(messagesOf(await rawRun(db, sql`DELETE FROM purges`).catch((e: unknown) => e))).toMatch(/(^| ← )append_only: purge records are never deleted/);
  });
});
