/**
 * The completion gate held by the database (migration 0008): raw SQL, as a hand-written UPDATE
 * would come, against the triggers of db/completion-gate.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ForbiddenTransitionError } from "@/server/domain/errors";
import { toDomainError } from "@/server/services/sqlite-errors";
import { completionGateMigrationSql } from "./completion-gate";
import { applyMigrations } from "./migrate";
import {
  type Sqlite,
  addSession,
  expectRefused,
  expectRule,
  freshSqlite,
  insertTask,
  migrationsBefore,
  row,
  setStatus,
  taskAt,
} from "@/test/support/db-fixtures";

const FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));
const JOURNAL = JSON.parse(fs.readFileSync(path.join(FOLDER, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
const GATE_TAG = JOURNAL.entries.find((e) => e.tag.endsWith("_session_completion_gate"))!.tag;

describe("the committed migration", () => {
  it("ends with what db/completion-gate.ts generates (run `npm run db:enforcement` after changing it)", () => {
    const committed = fs.readFileSync(path.join(FOLDER, `${GATE_TAG}.sql`), "utf8");
    expect(committed.endsWith(`--> statement-breakpoint\n${completionGateMigrationSql()}\n`)).toBe(true);
  });
});

let sqlite: Sqlite;
const COMPLETE = "UPDATE sessions SET status = 'completed' WHERE id = 's1'";

/** Record a completion check of `session` as the service would (accepted or not); returns its id. */
function check(accepted: boolean, session = "s1"): number {
  const result = sqlite
    .prepare("INSERT INTO completion_checks (session_id, accepted, reasons, met_count, total_count, actor) VALUES (?, ?, ?, 1, 1, 'orchestrator')")
    .run(session, accepted ? 1 : 0, accepted ? "[]" : '["Only 0/1 criteria met"]');
  return Number(result.lastInsertRowid);
}
const session = (id = "s1") => row(sqlite, "sessions", id)!;

function setUp(enforcement: "enforce" | "observe" = "enforce"): { criterion: number; task: number; goal: number } {
  addSession(sqlite, "s1", enforcement);
  addSession(sqlite, "s2", enforcement);
  const criterion = Number(
    sqlite.prepare("INSERT INTO success_criteria (session_id, criterion, status) VALUES ('s1', 'tests pass', 'met')").run().lastInsertRowid,
  );
  const task = taskAt(sqlite, "s1", "login", "completed");
  const goal = Number(sqlite.prepare("INSERT INTO goals (session_id, goal_text) VALUES ('s1', 'accuracy')").run().lastInsertRowid);
  return { criterion, task, goal };
}
const evaluate = (goal: number, verdict: string) =>
  sqlite
    .prepare(
      `INSERT INTO goal_gate_evaluations (goal_id, attempt_number, trust_passed, goal_status, met_count, total_count, criteria_results, verdict, reason, actor)
       VALUES (?, 1, 1, 'MET', 1, 1, '[]', ?, 'r', 'verifier_1')`,
    )
    .run(goal, verdict);

beforeEach(() => {
  sqlite = freshSqlite();
});

describe("an enforce session", () => {
  it("does not complete by a raw UPDATE without a completion check", () => {
    setUp();
    expectRefused(sqlite, "sessions", "s1", COMPLETE, "completion.check_required");
  });

  it("does not complete by a raw UPDATE when its latest check rejected it, even after an accepted one", () => {
    setUp();
    check(true);
    check(false);
    expectRefused(sqlite, "sessions", "s1", COMPLETE, "completion.rejected");
    expectRefused(sqlite, "sessions", "s1", "UPDATE sessions SET status = 'completed', ended_at = 1 WHERE id = 's1'", "completion.rejected");
  });

  it("completes by the same raw UPDATE right after an accepted check, naming the check it rested on", () => {
    setUp();
    const id = check(true);
    sqlite.prepare(COMPLETE).run();
    expect(session()).toMatchObject({ status: "completed", completion_check_id: id, checks_stale_through: id });
  });

  // Each write changes what the gate reads, after the accepted check.
  const changes: [string, (ids: ReturnType<typeof setUp>) => void][] = [
    ["a criterion's status", ({ criterion }) => sqlite.prepare("UPDATE success_criteria SET status = 'failed' WHERE id = ?").run(criterion)],
    [
      "a criterion's evidence",
      ({ criterion }) => sqlite.prepare("UPDATE success_criteria SET evidence = 'blocked by vendor outage' WHERE id = ?").run(criterion),
    ],
    [
      "a verifier's finding on a criterion",
      ({ criterion }) => sqlite.prepare("UPDATE success_criteria SET verifier_status = 'failed' WHERE id = ?").run(criterion),
    ],
    ["a criterion's required flag", ({ criterion }) => sqlite.prepare("UPDATE success_criteria SET required_for_completion = 0 WHERE id = ?").run(criterion)],
    ["a new criterion", () => sqlite.prepare("INSERT INTO success_criteria (session_id, criterion) VALUES ('s1', 'docs written')").run()],
    ["a new task", () => insertTask(sqlite, "s1", "signup")],
    ["a task's title", ({ task }) => sqlite.prepare("UPDATE tasks SET title = 'login, again' WHERE id = ?").run(task)],
    ["a goal gate verdict", ({ goal }) => evaluate(goal, "SUCCESS")],
    ["a goal contract", ({ goal }) => sqlite.prepare("INSERT INTO goal_contracts (goal_id, goal_text) VALUES (?, 'accuracy')").run(goal)],
  ];
  it.each(changes)("does not complete when %s changed after the accepted check", (_, change) => {
    const ids = setUp();
    const id = check(true);
    change(ids);
    expect(session().checks_stale_through).toBe(id);
    expectRefused(sqlite, "sessions", "s1", COMPLETE, "completion.check_required");
    // Checked again, it completes.
    check(true);
    sqlite.prepare(COMPLETE).run();
    expect(session().status).toBe("completed");
  });

  it("does not complete when a task moved after the accepted check (a task in a completed session, raw)", () => {
    setUp();
    const task = taskAt(sqlite, "s1", "extra", "verified");
    check(true);
    sqlite.prepare(`UPDATE tasks SET ${setStatus("completed")} WHERE id = ?`).run(task);
    expectRefused(sqlite, "sessions", "s1", COMPLETE, "completion.check_required");
  });

  it("stays complete-able after writes that change nothing the gate reads, or another session's rows", () => {
    const { criterion, task, goal } = setUp();
    const id = check(true);
    sqlite.prepare("UPDATE tasks SET status = status, description = 'more detail', assignee = 'developer_2' WHERE id = ?").run(task);
    sqlite.prepare("UPDATE success_criteria SET status = status, created_by = 'pm' WHERE id = ?").run(criterion);
    sqlite.prepare("INSERT INTO goals (session_id, goal_text) VALUES ('s1', 'latency')").run();
    sqlite.prepare("INSERT INTO orchestration_logs (session_id, agent_type, content) VALUES ('s1', 'pm', 'BAZINGA')").run();
    insertTask(sqlite, "s2", "elsewhere");
    check(false, "s2");
    expect(goal).toBeGreaterThan(0);
    expect(session().checks_stale_through).toBe(0);
    sqlite.prepare(COMPLETE).run();
    expect(session()).toMatchObject({ status: "completed", completion_check_id: id });
  });

  it("needs a new check for each completion: reopened, it does not complete on the check it already used", () => {
    setUp();
    check(true);
    sqlite.prepare(COMPLETE).run();
    sqlite.prepare("UPDATE sessions SET status = 'active' WHERE id = 's1'").run();
    expectRefused(sqlite, "sessions", "s1", COMPLETE, "completion.check_required");
    const again = check(true);
    sqlite.prepare(COMPLETE).run();
    expect(session()).toMatchObject({ status: "completed", completion_check_id: again });
  });

  it("fails or stays failed without a check: only completion is gated", () => {
    setUp();
    sqlite.prepare("UPDATE sessions SET status = 'failed' WHERE id = 's1'").run();
    expect(session().status).toBe("failed");
  });

  it("reaches the caller as the named rule, like every trigger's refusal", () => {
    setUp();
    check(false);
    let caught: unknown;
    try {
      sqlite.prepare(COMPLETE).run();
    } catch (error) {
      caught = toDomainError(error);
    }
    expect(caught).toBeInstanceOf(ForbiddenTransitionError);
    expect(caught).toMatchObject({ rule: "completion.rejected" });
  });
});

describe("an observe session", () => {
  it("does not complete without a completion check", () => {
    setUp("observe");
    expectRefused(sqlite, "sessions", "s1", COMPLETE, "completion.check_required");
  });

  it("completes on a fresh check whatever its verdict: the rejected check stays on record as the one it rested on", () => {
    setUp("observe");
    const rejected = check(false);
    sqlite.prepare(COMPLETE).run();
    expect(session()).toMatchObject({ status: "completed", completion_check_id: rejected });
  });

  it("does not complete on a check that a later write made stale", () => {
    const { task } = setUp("observe");
    check(false);
    sqlite.prepare("UPDATE tasks SET status = 'blocked', verification = 'none' WHERE id = ?").run(task);
    expectRefused(sqlite, "sessions", "s1", COMPLETE, "completion.check_required");
  });
});

describe("the gate's bookkeeping", () => {
  it("never lets a stale check become fresh again, nor names a check a completion did not rest on", () => {
    const { task } = setUp();
    const first = check(true);
    sqlite.prepare("UPDATE tasks SET title = 'renamed' WHERE id = ?").run(task);
    expectRefused(sqlite, "sessions", "s1", "UPDATE sessions SET checks_stale_through = 0 WHERE id = 's1'", "completion.bookkeeping");
    expectRefused(sqlite, "sessions", "s1", "UPDATE sessions SET checks_stale_through = 0, status = 'completed' WHERE id = 's1'", "completion.bookkeeping");
    expectRefused(sqlite, "sessions", "s1", "UPDATE sessions SET checks_stale_through = 99 WHERE id = 's1'", "completion.bookkeeping");
    expectRefused(sqlite, "sessions", "s1", `UPDATE sessions SET completion_check_id = ${first} WHERE id = 's1'`, "completion.bookkeeping");
    check(true);
    sqlite.prepare(COMPLETE).run();
    expectRefused(sqlite, "sessions", "s1", `UPDATE sessions SET completion_check_id = ${first} WHERE id = 's1'`, "completion.bookkeeping");
    expectRefused(sqlite, "sessions", "s1", "UPDATE sessions SET completion_check_id = NULL WHERE id = 's1'", "completion.bookkeeping");
  });

  it("refuses a session inserted as completed, or with a completion check named", () => {
    expectRule(() => sqlite.prepare("INSERT INTO sessions (id, status) VALUES ('s9', 'completed')").run(), "completion.check_required");
    expectRule(() => sqlite.prepare("INSERT INTO sessions (id, completion_check_id) VALUES ('s9', 1)").run(), "completion.bookkeeping");
    expect(row(sqlite, "sessions", "s9")).toBeUndefined();
  });
});

describe("a database created by an older version", () => {
  let dir: string;
  const handles: Database.Database[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-gate-"));
  });
  afterEach(() => {
    for (const handle of handles.splice(0)) handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("keeps its completed sessions as they are, and its earlier checks count as stale", () => {
    const old = new Database(path.join(dir, "old.db"));
    handles.push(old);
    applyMigrations(old, migrationsBefore(dir, "_session_completion_gate"));
    sqlite = old;
    addSession(old, "done");
    addSession(old, "s1");
    old.prepare("UPDATE sessions SET status = 'completed' WHERE id = 'done'").run(); // no check: the old version allowed it
    const earlier = check(true);

    applyMigrations(old);
    expect(row(old, "sessions", "done")).toMatchObject({ status: "completed", completion_check_id: null, checks_stale_through: 0 });
    expect(session()).toMatchObject({ status: "active", checks_stale_through: earlier });
    expectRefused(old, "sessions", "s1", COMPLETE, "completion.check_required");
    const fresh = check(true);
    old.prepare(COMPLETE).run();
    expect(session()).toMatchObject({ status: "completed", completion_check_id: fresh });
  });
});
