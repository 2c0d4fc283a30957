import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { analyticsRollupStatements, enforcementMigrationSql, enforcementStatements } from "./enforcement";
import { completionGateTriggerNames } from "./completion-gate";
import { sessionSearchTriggerNames } from "./session-search";
import { type Sqlite, addSession, count, expectRefused, freshSqlite, row } from "@/test/support/db-fixtures";

const MIGRATION = fileURLToPath(new URL("./migrations/0001_enforcement.sql", import.meta.url));

describe("the committed enforcement migration", () => {
  const committed = fs.readFileSync(MIGRATION, "utf8");
  const names = [...committed.matchAll(/^CREATE TRIGGER (\w+)$/gm)].map((m) => m[1]);

  it("is what db/enforcement.ts generates (run `npm run db:enforcement` after changing it)", () => {
    expect(committed).toBe(enforcementMigrationSql());
  });

  it("creates every one of its triggers in a fresh database", () => {
    expect(names).toHaveLength(enforcementStatements().length);
    expect(new Set(names).size).toBe(names.length);
    const sqlite = freshSqlite();
    const present = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[]).sort();
    // Plus the derived-value triggers of migrations 0004 and 0005 (analytics rollups, blocked_at), 0006 (the sessions search index) and 0008 (the completion gate).
    const derived = analyticsRollupStatements().map((statement) => /^CREATE TRIGGER (\w+)$/m.exec(statement)?.[1]);
    expect(present).toEqual([...names, ...derived, ...sessionSearchTriggerNames(), ...completionGateTriggerNames()].sort());
  });
});

let sqlite: Sqlite;
beforeEach(() => {
  sqlite = freshSqlite();
  addSession(sqlite, "s1");
  addSession(sqlite, "s2");
});

describe("success criteria", () => {
  const insertCriterion = (text: string) =>
    Number(sqlite.prepare("INSERT INTO success_criteria (session_id, criterion) VALUES ('s1', ?)").run(text).lastInsertRowid);

  it("never change their text or session", () => {
    const id = insertCriterion("coverage >= 80%");
    expectRefused(sqlite, "success_criteria", id, `UPDATE success_criteria SET criterion = 'coverage >= 50%' WHERE id = ${id}`, "criteria.immutable");
    expectRefused(sqlite, "success_criteria", id, `UPDATE success_criteria SET session_id = 's2' WHERE id = ${id}`, "criteria.immutable");
    expectRefused(sqlite, "success_criteria", id, `UPDATE success_criteria SET status = 'met', criterion = 'anything' WHERE id = ${id}`, "criteria.immutable");
  });

  it("accept changes to status, actual, evidence, the verifier's finding and the required flag", () => {
    const id = insertCriterion("coverage >= 80%");
    sqlite
      .prepare(
        `UPDATE success_criteria SET status = 'met', actual = '83%', evidence = 'coverage.txt', verifier_status = 'failed',
         required_for_completion = 0, criterion = criterion WHERE id = ?`,
      )
      .run(id);
    expect(row(sqlite, "success_criteria", id)).toMatchObject({
      criterion: "coverage >= 80%",
      session_id: "s1",
      status: "met",
      actual: "83%",
      evidence: "coverage.txt",
      verifier_status: "failed",
      required_for_completion: 0,
    });
  });
});

describe("goal contracts", () => {
  const setUp = (goalText: string) => {
    const goal = Number(sqlite.prepare("INSERT INTO goals (session_id, goal_text) VALUES ('s1', ?)").run(goalText).lastInsertRowid);
    const contract = Number(sqlite.prepare("INSERT INTO goal_contracts (goal_id, goal_text) VALUES (?, ?)").run(goal, goalText).lastInsertRowid);
    const criterion = addCriterion(contract, "AC1");
    return { goal, contract, criterion };
  };
  const addCriterion = (contract: number, key: string) =>
    Number(
      sqlite
        .prepare(
          "INSERT INTO acceptance_criteria (contract_id, key, position, kind, metric, op, target) VALUES (?, ?, 1, 'metric_threshold', 'acc', '>=', 0.8)",
        )
        .run(contract, key).lastInsertRowid,
    );
  const evaluate = (goal: number, contract: number | null) =>
    sqlite
      .prepare(
        `INSERT INTO goal_gate_evaluations (goal_id, contract_id, attempt_number, trust_passed, goal_status, met_count, total_count,
           criteria_results, verdict, reason, actor) VALUES (?, ?, 1, 1, 'NOT_MET', 0, 1, '[]', 'PARTIAL', 'not yet', 'verifier_1')`,
      )
      .run(goal, contract);

  it("change freely before an attempt was evaluated against them", () => {
    const { goal, contract, criterion } = setUp("accuracy");
    evaluate(goal, null); // an evaluation without a contract freezes nothing
    sqlite.prepare("UPDATE goal_contracts SET goal_text = 'accuracy v2', version = 2, max_goal_attempts = 5 WHERE id = ?").run(contract);
    sqlite.prepare("UPDATE acceptance_criteria SET target = 0.9 WHERE id = ?").run(criterion);
    addCriterion(contract, "AC2");
    expect(row(sqlite, "goal_contracts", contract)).toMatchObject({ goal_text: "accuracy v2", version: 2, max_goal_attempts: 5 });
    expect(row(sqlite, "acceptance_criteria", criterion)).toMatchObject({ target: 0.9 });
    expect(count(sqlite, "acceptance_criteria", `contract_id = ${contract}`)).toBe(2);
  });

  it("are frozen, with their criteria, once an evaluation references the contract", () => {
    const { goal, contract, criterion } = setUp("accuracy");
    const other = setUp("latency");
    evaluate(goal, contract);

    expectRefused(sqlite, "goal_contracts", contract, `UPDATE goal_contracts SET goal_text = 'easier' WHERE id = ${contract}`, "goal_contract.immutable");
    expectRefused(sqlite, "goal_contracts", contract, `UPDATE goal_contracts SET max_goal_attempts = 99 WHERE id = ${contract}`, "goal_contract.immutable");
    expectRefused(sqlite, "acceptance_criteria", criterion, `UPDATE acceptance_criteria SET target = 0.1 WHERE id = ${criterion}`, "goal_contract.immutable");
    expectRefused(sqlite, "acceptance_criteria", criterion, `DELETE FROM acceptance_criteria WHERE id = ${criterion}`, "goal_contract.immutable");
    expectRefused(sqlite, "goal_contracts", contract, `DELETE FROM goal_contracts WHERE id = ${contract}`, "purge_only:");
    const before = count(sqlite, "acceptance_criteria");
    expect(() => addCriterion(contract, "AC2")).toThrow(/^goal_contract\.immutable/);
    expect(count(sqlite, "acceptance_criteria")).toBe(before);

    // Another goal's contract is not affected.
    sqlite.prepare("UPDATE goal_contracts SET goal_text = 'latency v2' WHERE id = ?").run(other.contract);
    addCriterion(other.contract, "AC2");
  });
});
