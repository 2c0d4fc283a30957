// The crash run's database checks, against a ledger written whole through the services and then
// damaged below them, on one engine: check.test.ts runs them on SQLite, check.engines.test.ts on
// PostgreSQL, so the engine-neutral SQL of check-rows.ts has teeth on both.
import { beforeEach, describe, expect, it } from "vitest";
import { type Db, closeLedger } from "@/db/client";
import { operatorActor } from "@/server/domain/actors";
import type { ServiceContext } from "@/server/services/context";
import { saveCriteria } from "@/server/services/criteria/save";
import { updateCriterion } from "@/server/services/criteria/update";
import { ingestBatch } from "@/server/services/log/ingest-batch";
import { createSession } from "@/server/services/session/create";
import { createTask } from "@/server/services/task/create";
import { moveTask } from "@/server/services/task/move";
import { checkDatabase } from "./check";
import { Ledger } from "./ledger";
import { batchRows } from "./writers";

export const SESSION = "crash_run";

export interface CheckedDatabase {
  /** A SQLite file or a postgres:// URL, empty or migrated. */
  target: string;
  /** The ledger on it, migrated, for the fixture to be written through. */
  db: Db;
  /** Run SQL statements on it with the append-only triggers out of the way, as a broken write path would write. */
  damage(statements: string): Promise<void>;
}

/** Write the fixture: one task through four moves, two criterion updates, two log batches, each acknowledged in `ledger`. */
async function writeWhole(db: Db, ledger: Ledger): Promise<void> {
  const as = (label: string): ServiceContext => ({ db, actor: operatorActor(label) });
  await createSession(as("setup"), { id: SESSION });
  await saveCriteria(as("setup"), { sessionId: SESSION, criteria: [{ criterion: "crash criterion 1" }] });
  const created = await createTask(as("dev-1"), { sessionId: SESSION, key: "m1-t1", title: "a task" });
  ledger.tasks.push({ key: "m1-t1", taskId: created.id, move: "create", version: created.version, status: created.status });
  for (const [move, label] of [
    ["start", "dev-1"],
    ["claim", "dev-1"],
    ["verify", "qa-1"],
  ] as const) {
    const proofpack = move === "verify" ? { verdict: "PASSED" as const, checks: [{ name: "suite", passed: true }] } : undefined;
    const row = await moveTask(as(label), { sessionId: SESSION, key: "m1-t1", move, proofpack });
    ledger.tasks.push({ key: "m1-t1", taskId: row.id, move, version: row.version, status: row.status });
  }
  for (const [seq, status] of [
    [1, "met"],
    [2, "failed"],
  ] as const) {
    const row = await updateCriterion(as("pm-1"), { sessionId: SESSION, criterion: "crash criterion 1", status, actual: `c1-u${seq}` });
    ledger.criteria.push({ criterionId: row.id, status: row.status, actual: `c1-u${seq}` });
  }
  for (const batchId of ["b1.1", "b1.2"]) {
    const rows = batchRows(batchId, 30);
    const { ids } = await ingestBatch(as("logger-1"), { sessionId: SESSION, rows });
    ledger.batches.push({ batchId, logIds: ids.filter((_, i) => rows[i]!.kind !== "tokens"), tokenIds: ids.filter((_, i) => rows[i]!.kind === "tokens") });
  }
}

/** The checks' cases on the databases `open` makes (one per test). */
export function describeDatabaseChecks(engine: string, open: () => Promise<CheckedDatabase>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip ?? false)(`the crash run's database checks on ${engine}`, () => {
    let database: CheckedDatabase;
    let ledger: Ledger;

    beforeEach(async () => {
      database = await open();
      ledger = new Ledger();
      await writeWhole(database.db, ledger);
      await closeLedger(database.db);
    });

    const check = () => checkDatabase(database.target, SESSION, ledger, 0);
    const failures = async () => (await check()).failures.join("\n");

    it("pass a database written whole, every acknowledged write verified", async () => {
      const result = await check();
      expect(result.failures).toEqual([]);
      expect(result.verified).toBe(ledger.acknowledged);
      expect(result.eventIds.length).toBeGreaterThan(0);
    });

    it("name a move stored without its event", async () => {
      await database.damage("DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE type = 'task.verified')");
      expect(await failures()).toMatch(/task m1-t1 .*: 4 transitions but 3 events/);
    });

    it("name a move's event stored without the move", async () => {
      await database.damage("DELETE FROM task_transitions WHERE move = 'verify'; UPDATE tasks SET version = 3, status = 'claimed'");
      const found = await failures();
      expect(found).toMatch(/3 transitions but 4 events/);
      expect(found).toMatch(/acknowledged verify of task m1-t1 \(version 4, verified\) is not stored/);
    });

    it("name a task row that moved without its transition", async () => {
      await database.damage("UPDATE tasks SET status = 'completed', version = 5");
      expect(await failures()).toMatch(/version 5 but 4 transitions[\s\S]*status completed but its last transition went to verified/);
    });

    it("name a log batch stored in part, and one whose rows lost their event", async () => {
      await database.damage(
        "DELETE FROM orchestration_logs WHERE content LIKE 'crash:b1.1:7/30 %'; DELETE FROM events WHERE type = 'logs.appended' AND id = (SELECT max(id) FROM events WHERE type = 'logs.appended')",
      );
      const found = await failures();
      expect(found).toMatch(/batch b1\.1 is partly stored: 26 log rows and 3 token rows of 30 \(missing rows 7\)/);
      expect(found).toMatch(/batch b1\.2: its rows are stored but its logs\.appended event is missing/);
      expect(found).toMatch(/acknowledged batch b1\.1 .* is not stored as acknowledged/);
    });

    it("name a batch's token rows lost while its logs stayed", async () => {
      await database.damage("DELETE FROM token_usage WHERE agent_id = 'b1.2' AND tokens_estimated = 20");
      expect(await failures()).toMatch(/batch b1\.2 is partly stored: 27 log rows and 2 token rows of 30 \(missing rows 20\)/);
    });

    it("name a criterion update lost, and a criterion whose row disagrees with its history", async () => {
      await database.damage("DELETE FROM criterion_updates WHERE actual = 'c1-u2'");
      const found = await failures();
      expect(found).toMatch(/criterion "crash criterion 1": 2 updates but 3 events/);
      expect(found).toMatch(/is failed "c1-u2" but its last update says met "c1-u1"/);
      expect(found).toMatch(/acknowledged criterion update c1-u2 \(failed\) is not stored/);
    });

    it("name rollup counters that disagree with the rows, and which", async () => {
      await database.damage("UPDATE sessions SET tasks_verified = 0, criteria_total = 7");
      expect((await check()).failures).toContain(
        `session ${SESSION}: its rollup counters disagree with its rows (tasks_verified 0, recount 1; criteria_total 7, recount 1)`,
      );
    });
  });
}
