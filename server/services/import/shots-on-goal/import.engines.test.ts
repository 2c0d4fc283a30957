/**
 * Importing shots-on-goal's v2 and v1 fixtures into a ledger, on both engines (issue 21): every
 * row of every table once, the goal tree, attempts and their calls in order, a second import and
 * a later copy. The sources are SQLite files on both.
 */
import { afterAll, expect, it, vi } from "vitest";
import { type Db, engineOf } from "@/db/client";
import { describeEngines } from "@/test/support/engines";
import {
  copyFixture,
  importLedgers,
  ledgerFingerprint,
  ledgerNumber,
  ledgerRows,
  ledgerValues,
  removeTemps,
  sha256,
  sourceCount,
  tempDir,
  withSource,
} from "@/test/support/import-fixtures";
import type { ImportReport } from "../report";
import { importShotsOnGoal } from "./importer";

// Each test imports a whole database into a fresh ledger: seconds, more on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
afterAll(removeTemps);

const freshLedger = importLedgers();
const entity = (report: ImportReport, name: string) => report.entities.find((e) => e.entity === name)!;

describeEngines("importing the shots-on-goal v2 fixture (the append-only model, twelve tables)", (engine) => {
  const V2 = "shots-on-goal-v2-sample.db";
  const TABLES: [string, string][] = [
    ["sessions", "session"],
    ["tools", "tool"],
    ["goals", "goal"],
    ["validation steps", "validation_step"],
    ["branches", "branch"],
    ["worktrees", "worktree"],
    ["attempts", "attempt"],
    ["attempt tools", "attempt_tool"],
    ["attempt results", "attempt_result"],
    ["tool calls", "tool_call"],
    ["validation runs", "validation_run"],
    ["merges", "merge"],
  ];
  const LEDGER: Record<string, string> = {
    session: "sessions WHERE source = 'shots-on-goal'",
    tool: "tools",
    goal: "goals",
    validation_step: "validation_steps",
    branch: "branches",
    worktree: "worktrees",
    attempt: "attempts",
    attempt_tool: "attempt_tools",
    attempt_result: "attempt_results",
    tool_call: "tool_calls",
    validation_run: "validation_runs",
    merge: "merges",
  };

  it("imports every row of every table, once, and a second import changes nothing", async () => {
    const source = copyFixture(V2);
    const bytes = sha256(source);
    const db = await freshLedger(engine);
    const report = await importShotsOnGoal(db, source);
    expect(report.schema.version).toBe("v2");
    for (const [name, table] of TABLES) {
      const n = sourceCount(source, `SELECT count(*) FROM "${table}"`);
      expect(n, table).toBeGreaterThan(0);
      expect(entity(report, name), name).toMatchObject({ read: n, imported: n, skipped: 0 });
      expect(await ledgerNumber(db, `SELECT count(*) FROM ${LEDGER[table]}`), table).toBe(n);
    }
    const before = await ledgerFingerprint(db);
    const again = await importShotsOnGoal(db, source);
    expect(await ledgerFingerprint(db)).toEqual(before);
    for (const e of again.entities) expect(e, e.entity).toMatchObject({ imported: 0, updated: 0, skipped: 0, unchanged: e.read });
    expect(sha256(source)).toBe(bytes);
  });

  it("keeps the goal tree, the breakdown attempts that made sub-goals, results, calls in order, runs and merges", async () => {
    const source = copyFixture(V2);
    const db = await freshLedger(engine);
    await importShotsOnGoal(db, source);
    // Sessions: one Proofgate session per source session, its goals under it.
    const perSession = withSource(source, (s) => s.prepare("SELECT count(*) FROM goal GROUP BY session_id ORDER BY session_id").pluck().all());
    expect(
      await ledgerValues(db, "SELECT count(*) AS n FROM goals g JOIN sessions s ON s.id = g.session_id GROUP BY s.id ORDER BY s.started_at, s.id"),
    ).toEqual(perSession);
    // The tree: each goal's parent text and the type of the attempt that created it.
    expect(
      await ledgerRows(
        db,
        "SELECT g.goal_text, p.goal_text AS parent, g.source, a.attempt_type AS made_by FROM goals g LEFT JOIN goals p ON p.id = g.parent_goal_id LEFT JOIN attempts a ON a.id = g.created_by_attempt_id ORDER BY g.id",
      ),
    ).toEqual(
      withSource(source, (s) =>
        s
          .prepare(
            "SELECT g.goal_text, p.goal_text AS parent, g.source, a.attempt_type AS made_by FROM goal g LEFT JOIN goal p ON p.id = g.parent_goal_id LEFT JOIN attempt a ON a.id = g.created_by_attempt_id ORDER BY g.id",
          )
          .all(),
      ),
    );
    // Attempts are numbered in the order the services needed them (a breakdown before the sub-goals it made): compare as sets.
    const sorted = (list: unknown[]) => list.map((r) => JSON.stringify(r)).sort();
    const results = withSource(source, (s) =>
      s
        .prepare(
          "SELECT g.goal_text, a.attempt_type, a.model, r.status, r.status_detail FROM attempt_result r JOIN attempt a ON a.id = r.attempt_id JOIN goal g ON g.id = a.goal_id",
        )
        .all(),
    );
    expect(
      sorted(
        await ledgerRows(
          db,
          "SELECT g.goal_text, a.attempt_type, a.model, r.status, r.status_detail FROM attempt_results r JOIN attempts a ON a.id = r.attempt_id JOIN goals g ON g.id = a.goal_id",
        ),
      ),
    ).toEqual(sorted(results));
    // Each attempt's calls, in order: the same tools, inputs and outputs.
    const calls = withSource(source, (s) =>
      s
        .prepare(
          "SELECT a.prompt, a.model, group_concat(c.tool_name || ' ' || c.input || ' ' || c.output, ' | ') AS calls FROM attempt a JOIN (SELECT * FROM tool_call ORDER BY attempt_id, order_num) c ON c.attempt_id = a.id GROUP BY a.id",
        )
        .all(),
    );
    const callsInOrder =
      engineOf(db) === "postgres"
        ? "string_agg(c.tool_name || ' ' || c.input || ' ' || c.output, ' | ' ORDER BY c.\"order\")"
        : "group_concat(c.tool_name || ' ' || c.input || ' ' || c.output, ' | ')";
    expect(
      sorted(
        await ledgerRows(
          db,
          `SELECT a.prompt, a.model, ${callsInOrder} AS calls FROM attempts a JOIN (SELECT * FROM tool_calls ORDER BY attempt_id, "order") c ON c.attempt_id = a.id GROUP BY a.id`,
        ),
      ),
    ).toEqual(sorted(calls));
    const runs = withSource(source, (s) =>
      s.prepare("SELECT vs.command, vr.exit_code FROM validation_run vr JOIN validation_step vs ON vs.id = vr.validation_step_id ORDER BY vr.id").all(),
    );
    expect(
      await ledgerRows(db, "SELECT vs.command, vr.exit_code FROM validation_runs vr JOIN validation_steps vs ON vs.id = vr.validation_step_id ORDER BY vr.id"),
    ).toEqual(runs);
    const merges = withSource(source, (s) =>
      s
        .prepare(
          "SELECT f.name AS from_branch, t.name AS to_branch, m.result_commit_sha FROM merge m JOIN branch f ON f.id = m.from_branch_id JOIN branch t ON t.id = m.to_branch_id ORDER BY m.id",
        )
        .all(),
    );
    expect(
      await ledgerRows(
        db,
        "SELECT f.name AS from_branch, t.name AS to_branch, m.result_commit_sha FROM merges m JOIN branches f ON f.id = m.from_branch_id JOIN branches t ON t.id = m.to_branch_id ORDER BY m.id",
      ),
    ).toEqual(merges);
    // Every write went through a service: each created goal, attempt and merge has its event.
    expect(await ledgerNumber(db, "SELECT count(*) FROM events WHERE type = 'goal.created'")).toBe(sourceCount(source, "SELECT count(*) FROM goal"));
    expect(await ledgerNumber(db, "SELECT count(*) FROM events WHERE type = 'attempt.finished'")).toBe(
      sourceCount(source, "SELECT count(*) FROM attempt_result"),
    );
    expect(await ledgerNumber(db, "SELECT count(*) FROM events WHERE type = 'merge.recorded'")).toBe(sourceCount(source, "SELECT count(*) FROM merge"));
  });

  it("gives each session the same id on every import of the file, in any ledger", async () => {
    const source = copyFixture(V2);
    const first = await freshLedger(engine);
    const second = await freshLedger(engine);
    await importShotsOnGoal(first, source);
    await importShotsOnGoal(second, copyFixture(V2));
    const ids = (db: Db) => ledgerValues<string>(db, "SELECT id FROM sessions ORDER BY id");
    expect(await ids(first)).toEqual(await ids(second));
    expect((await ids(first)).every((id) => /^sog_\d+_[0-9a-f]{10}$/.test(id))).toBe(true);
    expect(new Set(await ids(first)).size).toBe(sourceCount(source, "SELECT count(*) FROM session"));
  });

  it("imports from a later copy only the rows added since", async () => {
    const db = await freshLedger(engine);
    await importShotsOnGoal(db, copyFixture(V2));
    const before = await ledgerFingerprint(db);
    const later = copyFixture(V2, tempDir());
    withSource(later, (s) => {
      const goal = s
        .prepare("INSERT INTO goal (session_id, goal_text, order_num, source) VALUES (1, 'Pin every external dependency', 1, 'cli')")
        .run().lastInsertRowid;
      const attempt = s
        .prepare(
          "INSERT INTO attempt (goal_id, worktree_id, start_commit_sha, prompt, model, attempt_type) VALUES (?, 1, 'abcdef1234567', 'Pin them', 'm', 'implementation')",
        )
        .run(goal).lastInsertRowid;
      for (let i = 0; i < 3; i++)
        s.prepare(
          "INSERT INTO tool_call (attempt_id, order_num, tool_id, tool_name, input, output) VALUES (?, ?, 2, 'read_file', '{\"path\":\"WORKSPACE\"}', 'ok')",
        ).run(attempt, i);
      s.prepare("INSERT INTO attempt_result (attempt_id, end_commit_sha, status) VALUES (?, 'abcdef1234568', 'success')").run(attempt);
    });
    const report = await importShotsOnGoal(db, later);
    expect(entity(report, "goals")).toMatchObject({ imported: 1, skipped: 0 });
    expect(entity(report, "attempts")).toMatchObject({ imported: 1, skipped: 0 });
    expect(entity(report, "tool calls")).toMatchObject({ imported: 3, skipped: 0 });
    expect(entity(report, "attempt results")).toMatchObject({ imported: 1, skipped: 0 });
    const after = await ledgerFingerprint(db);
    expect(after.goals!.rows - before.goals!.rows).toBe(1);
    expect(after.tool_calls!.rows - before.tool_calls!.rows).toBe(3);
    expect(after.sessions).toEqual(before.sessions);
  });
});

describeEngines("importing the shots-on-goal v1 fixture (one session, statuses updated in place)", (engine) => {
  const V1 = "shots-on-goal-v1-sample.db";
  /** v1's outcome words and the result status each is (the test's own reading of the two schemas). */
  const OUTCOME: Record<string, string> = { success: "success", error: "error", llm_timeout: "timeout", tool_limit_exceeded: "tool_limit" };

  it("imports its session, goal tree, attempts with their outcomes and actions", async () => {
    const source = copyFixture(V1);
    const db = await freshLedger(engine);
    const report = await importShotsOnGoal(db, source);
    expect(report.schema.version).toBe("v1");
    const goals = sourceCount(source, "SELECT count(*) FROM goals");
    const parents = sourceCount(source, "SELECT count(DISTINCT parent_id) FROM goals WHERE parent_id IS NOT NULL");
    const attempts = sourceCount(source, "SELECT count(*) FROM attempts");
    const finished = sourceCount(source, "SELECT count(*) FROM attempts WHERE outcome IS NOT NULL");
    const actions = sourceCount(source, "SELECT count(*) FROM actions");
    expect(entity(report, "sessions")).toMatchObject({ read: 1, imported: 1, skipped: 0 });
    expect(entity(report, "goals")).toMatchObject({ read: goals, imported: goals, skipped: 0 });
    expect(entity(report, "breakdowns")).toMatchObject({ read: parents, imported: parents, skipped: 0 });
    expect(entity(report, "attempts")).toMatchObject({ read: attempts, imported: attempts, skipped: 0 });
    expect(entity(report, "attempt results")).toMatchObject({ read: finished, imported: finished, skipped: 0 });
    expect(entity(report, "tool calls")).toMatchObject({ read: actions, imported: actions, skipped: 0 });
    expect(report.notMapped).toContain("attempts.container_id: no Proofgate column holds it");

    // One session, source shots-on-goal, completed as v1 says, with the gate's check on record.
    const sessions = await ledgerRows<{ id: string; status: string; source: string }>(db, "SELECT id, status, source FROM sessions");
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ status: withSource(source, (s) => s.prepare("SELECT status FROM session").pluck().get()), source: "shots-on-goal" });
    expect(sessions[0]!.id).toMatch(/^sog1_session_5_[0-9a-f]{10}$/);
    // Sub-goals hang off their parents, each made by the breakdown attempt standing for v1's decomposition.
    expect(await ledgerRows(db, "SELECT g.goal_text, p.goal_text AS parent FROM goals g LEFT JOIN goals p ON p.id = g.parent_goal_id ORDER BY g.id")).toEqual(
      withSource(source, (s) =>
        s.prepare("SELECT g.description AS goal_text, p.description AS parent FROM goals g LEFT JOIN goals p ON p.id = g.parent_id ORDER BY g.id").all(),
      ),
    );
    expect(
      await ledgerNumber(
        db,
        "SELECT count(*) FROM goals g JOIN attempts a ON a.id = g.created_by_attempt_id WHERE a.attempt_type = 'breakdown' AND a.goal_id = g.parent_goal_id",
      ),
    ).toBe(sourceCount(source, "SELECT count(*) FROM goals WHERE parent_id IS NOT NULL"));
    expect(
      await ledgerNumber(
        db,
        "SELECT count(*) FROM attempt_results r JOIN attempts a ON a.id = r.attempt_id WHERE a.attempt_type = 'breakdown' AND r.status_detail LIKE 'shots-on-goal v1 decomposed this goal%'",
      ),
    ).toBe(parents);
    // Implementation attempts: model, outcome as a result status, failure reason, actions as calls.
    const expected = withSource(
      source,
      (s) =>
        s.prepare("SELECT model_id, outcome, failure_reason FROM attempts ORDER BY id").all() as {
          model_id: string;
          outcome: string;
          failure_reason: string | null;
        }[],
    );
    expect(
      await ledgerRows(
        db,
        "SELECT a.model, r.status, r.status_detail FROM attempts a JOIN attempt_results r ON r.attempt_id = a.id WHERE a.attempt_type = 'implementation' ORDER BY a.id",
      ),
    ).toEqual(expected.map((a) => ({ model: a.model_id, status: OUTCOME[a.outcome], status_detail: a.failure_reason })));
    expect(await ledgerNumber(db, "SELECT count(*) FROM tool_calls")).toBe(actions);
    expect(await ledgerNumber(db, "SELECT count(*) FROM validation_steps")).toBe(1);
    expect(await ledgerNumber(db, "SELECT count(*) FROM worktrees")).toBe(sourceCount(source, "SELECT count(*) FROM attempts WHERE worktree_path IS NOT NULL"));
  });

  it("imports from a later copy the outcomes and actions v1 filled in since, and nothing twice", async () => {
    const db = await freshLedger(engine);
    const running = copyFixture(V1);
    const last = sourceCount(running, "SELECT attempt_id FROM actions GROUP BY attempt_id HAVING count(*) > 1 ORDER BY attempt_id DESC LIMIT 1");
    const laterActions = withSource(running, (s) => {
      const first = s.prepare("SELECT min(id) FROM actions WHERE attempt_id = ?").pluck().get(last) as number;
      const n = s.prepare("DELETE FROM actions WHERE attempt_id = ? AND id > ?").run(last, first).changes;
      s.prepare("UPDATE attempts SET outcome = NULL, completed_at = NULL, final_commit_sha = NULL WHERE id = ?").run(last);
      s.prepare("UPDATE session SET status = 'active', completed_at = NULL").run();
      return n;
    });
    expect(laterActions).toBeGreaterThan(0);
    const first = await importShotsOnGoal(db, running);
    expect(entity(first, "attempt results")).toMatchObject({ imported: sourceCount(running, "SELECT count(*) FROM attempts WHERE outcome IS NOT NULL") });
    expect(await ledgerValues(db, "SELECT status FROM sessions")).toEqual(["active"]);
    const before = await ledgerFingerprint(db);
    const finished = copyFixture(V1, tempDir());
    const report = await importShotsOnGoal(db, finished);
    expect(entity(report, "attempt results")).toMatchObject({ imported: 1, skipped: 0 });
    expect(entity(report, "tool calls")).toMatchObject({ imported: laterActions, skipped: 0 });
    expect(entity(report, "sessions")).toMatchObject({ updated: 1, imported: 0 });
    expect(entity(report, "goals")).toMatchObject({ imported: 0, skipped: 0 });
    const after = await ledgerFingerprint(db);
    expect(after.attempt_results!.rows - before.attempt_results!.rows).toBe(1);
    expect(after.tool_calls!.rows - before.tool_calls!.rows).toBe(laterActions);
    expect(after.goals).toEqual(before.goals);
    expect(await ledgerValues(db, "SELECT status FROM sessions")).toEqual(["completed"]);
    const settled = await ledgerFingerprint(db);
    await importShotsOnGoal(db, finished);
    expect(await ledgerFingerprint(db)).toEqual(settled);
  });
});

describeEngines("refusals", (engine) => {
  it("names a file that is not a shots-on-goal database, and writes nothing", async () => {
    const db = await freshLedger(engine);
    const before = await ledgerFingerprint(db);
    await expect(importShotsOnGoal(db, copyFixture("bazinga-v19-sample.db", tempDir()))).rejects.toThrow(
      /is not a shots-on-goal database: .*use `proofgate import bazinga`/,
    );
    expect(await ledgerFingerprint(db)).toEqual(before);
  });
});
