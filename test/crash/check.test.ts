// The crash run's checks have teeth: a database written through the services passes them, and each
// kind of damage a crash could leave (an action stored in part, an acknowledged write missing, a gap
// or repeat in the live stream) is named.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { operatorActor } from "@/server/domain/actors";
import type { ServiceContext } from "@/server/services/context";
import { saveCriteria } from "@/server/services/criteria/save";
import { updateCriterion } from "@/server/services/criteria/update";
import { ingestBatch } from "@/server/services/log/ingest-batch";
import { createSession } from "@/server/services/session/create";
import { createTask } from "@/server/services/task/create";
import { moveTask } from "@/server/services/task/move";
import { type CheckResult, type LiveRecord, checkDatabase, checkLive } from "./check";
import { Ledger } from "./ledger";
import { batchRows } from "./writers";

const SESSION = "crash_run";
let dir: string;
let file: string;
let ledger: Ledger;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-crash-check-"));
  file = path.join(dir, "proofgate.db");
  ledger = new Ledger();
  const db = openDatabase(file);
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
  db.$client.close();
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Damage the file below the services, as a broken write path would: the append-only triggers are dropped first. */
function damage(statement: string): void {
  const sqlite = new Database(file);
  for (const name of sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[]) sqlite.exec(`DROP TRIGGER "${name}"`);
  sqlite.exec(statement);
  sqlite.close();
}

const check = () => checkDatabase(file, SESSION, ledger, 0);

describe("the crash run's database checks", () => {
  it("pass a database written whole, every acknowledged write verified", () => {
    const result = check();
    expect(result.failures).toEqual([]);
    expect(result.verified).toBe(ledger.acknowledged);
    expect(result.eventIds.length).toBeGreaterThan(0);
  });

  it("name a move stored without its event", () => {
    damage("DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE type = 'task.verified')");
    expect(check().failures.join("\n")).toMatch(/task m1-t1 .*: 4 transitions but 3 events/);
  });

  it("name a move's event stored without the move", () => {
    damage("DELETE FROM task_transitions WHERE move = 'verify'; UPDATE tasks SET version = 3, status = 'claimed'");
    const failures = check().failures.join("\n");
    expect(failures).toMatch(/3 transitions but 4 events/);
    expect(failures).toMatch(/acknowledged verify of task m1-t1 \(version 4, verified\) is not stored/);
  });

  it("name a task row that moved without its transition", () => {
    damage("UPDATE tasks SET status = 'completed', version = 5");
    expect(check().failures.join("\n")).toMatch(/version 5 but 4 transitions[\s\S]*status completed but its last transition went to verified/);
  });

  it("name a log batch stored in part, and one whose rows lost their event", () => {
    damage(
      "DELETE FROM orchestration_logs WHERE content LIKE 'crash:b1.1:7/30 %'; DELETE FROM events WHERE type = 'logs.appended' AND id = (SELECT max(id) FROM events WHERE type = 'logs.appended')",
    );
    const failures = check().failures.join("\n");
    expect(failures).toMatch(/batch b1\.1 is partly stored: 26 log rows and 3 token rows of 30 \(missing rows 7\)/);
    expect(failures).toMatch(/batch b1\.2: its rows are stored but its logs\.appended event is missing/);
    expect(failures).toMatch(/acknowledged batch b1\.1 .* is not stored as acknowledged/);
  });

  it("name a batch's token rows lost while its logs stayed", () => {
    damage("DELETE FROM token_usage WHERE agent_id = 'b1.2' AND tokens_estimated = 20");
    expect(check().failures.join("\n")).toMatch(/batch b1\.2 is partly stored: 27 log rows and 2 token rows of 30 \(missing rows 20\)/);
  });

  it("name a criterion update lost, and a criterion whose row disagrees with its history", () => {
    damage("DELETE FROM criterion_updates WHERE actual = 'c1-u2'");
    const failures = check().failures.join("\n");
    expect(failures).toMatch(/criterion "crash criterion 1": 2 updates but 3 events/);
    expect(failures).toMatch(/is failed "c1-u2" but its last update says met "c1-u1"/);
    expect(failures).toMatch(/acknowledged criterion update c1-u2 \(failed\) is not stored/);
  });

  it("name rollup counters that disagree with the rows", () => {
    damage("UPDATE sessions SET tasks_verified = 0");
    expect(check().failures).toContain(`session ${SESSION}: its rollup counters disagree with its rows`);
  });
});

describe("the live stream check", () => {
  const snapshot = (eventIds: number[]): CheckResult => ({ failures: [], verified: 0, actions: 0, maxEventId: eventIds.at(-1) ?? 0, eventIds });
  const delivered = (ids: number[]): LiveRecord => ({ ids, problems: [], lastId: ids.at(-1) ?? 0, waitFor: async (id) => (ids.at(-1) ?? 0) >= id });

  it("passes a stream that delivered every event once, in order, beyond the snapshot included", async () => {
    expect(await checkLive(delivered([1, 2, 3, 4, 5, 6]), snapshot([1, 2, 3, 4, 5]), 10)).toEqual([]);
  });

  it("names a gap, a duplicate and a stream that never caught up", async () => {
    expect(await checkLive(delivered([1, 2, 4, 5]), snapshot([1, 2, 3, 4, 5]), 10)).toEqual(["the live stream skipped 1 of 5 events (ids 3)"]);
    expect(await checkLive(delivered([1, 2, 9, 10]), snapshot([1, 2, 10]), 10)).toEqual(["the live stream delivered 1 events the table does not have (ids 9)"]);
    expect((await checkLive(delivered([1, 2, 2, 3]), snapshot([1, 2, 3]), 10))[0]).toBe("the live stream delivered event 2 after 2 (a duplicate)");
    expect(await checkLive(delivered([1, 2]), snapshot([1, 2, 3]), 10)).toEqual([
      "the live stream did not catch up with event 3 within 10 ms (last delivered: 2)",
    ]);
  });
});
