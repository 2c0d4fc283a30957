/**
 * Demo data exists so every dashboard view has something to show: 60 sessions must reach every
 * task, criterion, session, goal and attempt state the pages render.
 */
import type Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { createMemoryDb } from "@/db/client";
import { generateDemoData } from "./generate";

let sqlite: Database.Database;

beforeAll(async () => {
  const db = createMemoryDb();
  await generateDemoData(db, { sessions: 60, seed: 1, now: new Date("2026-11-21T12:00:00Z") });
  sqlite = db.$client;
});

function count(sql: string, ...params: unknown[]): number {
  return (sqlite.prepare(`SELECT count(*) AS n FROM ${sql}`).get(...params) as { n: number }).n;
}

function values(sql: string): unknown[] {
  return sqlite.prepare(sql).pluck().all();
}

describe("demo coverage: tasks", () => {
  it.each(["pending", "in_progress", "claimed", "verified"])("has %s tasks", (status) => {
    expect(count("tasks WHERE status = ?", status)).toBeGreaterThan(0);
  });

  it("has blocked tasks awaiting a reset approval and blocked tasks without a request", () => {
    expect(count("tasks WHERE status = 'blocked' AND reset_requested = 1")).toBeGreaterThan(0);
    expect(count("tasks WHERE status = 'blocked' AND reset_requested = 0")).toBeGreaterThan(0);
    // A blocked task shows who blocked it and why.
    expect(count("tasks WHERE status = 'blocked' AND (blocked_by IS NULL OR failures IS NULL OR json_array_length(failures) = 0)")).toBe(0);
    // A reset request in the inbox carries its reason and requester.
    expect(count("tasks WHERE reset_requested = 1 AND (reset_reason IS NULL OR reset_requested_by IS NULL)")).toBe(0);
  });

  it("has verified completions, and unverified ones only in observe sessions", () => {
    expect(count("tasks WHERE status = 'completed' AND verification = 'verified'")).toBeGreaterThan(0);
    expect(
      count("tasks t JOIN sessions s ON s.id = t.session_id WHERE t.status = 'completed' AND t.verification = 'none' AND s.enforcement = 'observe'"),
    ).toBeGreaterThan(0);
    expect(count("tasks t JOIN sessions s ON s.id = t.session_id WHERE t.verification = 'none' AND s.enforcement = 'enforce'")).toBe(0);
    expect(count("tasks WHERE status = 'completed' AND verification IS NULL")).toBe(0);
  });

  it("has tasks that were blocked, reset by a lead to pending, and later completed", () => {
    const resetThenCompleted = count(
      `tasks t WHERE t.status = 'completed' AND t.reset_count > 0
         AND EXISTS (SELECT 1 FROM task_transitions x WHERE x.task_id = t.id AND x.move = 'approve_reset'
                     AND x.from_status = 'blocked' AND x.to_status = 'pending' AND x.role IN ('lead', 'admin') AND x.reason IS NOT NULL)`,
    );
    expect(resetThenCompleted).toBeGreaterThan(0);
  });
});

describe("demo coverage: success criteria", () => {
  it.each(["pending", "met", "blocked", "failed"])("has %s criteria", (status) => {
    expect(count("success_criteria WHERE status = ?", status)).toBeGreaterThan(0);
  });

  it("gives every blocked criterion evidence naming its blocker", () => {
    expect(count("success_criteria WHERE status = 'blocked'")).toBeGreaterThan(0);
    expect(count("success_criteria WHERE status = 'blocked' AND (evidence IS NULL OR trim(evidence) = '')")).toBe(0);
  });

  it("has verifier findings that confirm the claim and ones that disagree with it", () => {
    expect(count("success_criteria WHERE verifier_status IS NOT NULL AND verifier_status = status")).toBeGreaterThan(0);
    expect(count("success_criteria WHERE verifier_status IS NOT NULL AND verifier_status <> status")).toBeGreaterThan(0);
    expect(count("success_criteria WHERE verifier_status IS NOT NULL AND (verifier_by IS NULL OR verifier_at IS NULL)")).toBe(0);
  });

  it("has optional criteria beside required ones", () => {
    expect(values("SELECT DISTINCT required_for_completion FROM success_criteria ORDER BY 1")).toEqual([0, 1]);
  });
});

describe("demo coverage: sessions", () => {
  it("has active, completed and failed sessions under both enforcement policies", () => {
    expect(values("SELECT DISTINCT status FROM sessions ORDER BY 1")).toEqual(["active", "completed", "failed"]);
    expect(values("SELECT DISTINCT enforcement FROM sessions ORDER BY 1")).toEqual(["enforce", "observe"]);
    expect(values("SELECT DISTINCT source FROM sessions")).toEqual(["demo"]);
  });

  it("has accepted and rejected completion checks, rejections with their reasons", () => {
    expect(count("completion_checks WHERE accepted = 1")).toBeGreaterThan(0);
    expect(count("completion_checks WHERE accepted = 0")).toBeGreaterThan(0);
    expect(count("completion_checks WHERE accepted = 0 AND json_array_length(reasons) = 0")).toBe(0);
    expect(count("completion_checks WHERE accepted = 1 AND json_array_length(reasons) > 0")).toBe(0);
  });
});

describe("demo coverage: goals and attempts", () => {
  it("has goals with a contract and goals without one", () => {
    expect(count("goals g WHERE EXISTS (SELECT 1 FROM goal_contracts c WHERE c.goal_id = g.id)")).toBeGreaterThan(0);
    expect(count("goals g WHERE NOT EXISTS (SELECT 1 FROM goal_contracts c WHERE c.goal_id = g.id)")).toBeGreaterThan(0);
    expect(count("goal_contracts c WHERE NOT EXISTS (SELECT 1 FROM acceptance_criteria a WHERE a.contract_id = c.id)")).toBe(0);
  });

  it("has sub-goals from a breakdown attempt of their parent goal", () => {
    expect(count("goals WHERE source = 'breakdown'")).toBeGreaterThan(0);
    const orphans = count(
      `goals g WHERE g.source = 'breakdown' AND NOT EXISTS (
         SELECT 1 FROM attempts a WHERE a.id = g.created_by_attempt_id AND a.attempt_type = 'breakdown' AND a.goal_id = g.parent_goal_id)`,
    );
    expect(orphans).toBe(0);
    expect(count("goals WHERE source = 'cli' AND (parent_goal_id IS NOT NULL OR created_by_attempt_id IS NOT NULL)")).toBe(0);
  });

  it("has attempts of both types and results of every status", () => {
    expect(values("SELECT DISTINCT attempt_type FROM attempts ORDER BY 1")).toEqual(["breakdown", "implementation"]);
    expect(values("SELECT DISTINCT status FROM attempt_results ORDER BY 1")).toEqual(["completed", "error", "success", "timeout", "tool_limit"]);
    expect(count("attempts a WHERE NOT EXISTS (SELECT 1 FROM attempt_results r WHERE r.attempt_id = a.id)")).toBe(0);
  });

  it("has tool calls, validation runs that pass and fail, and merges", () => {
    expect(count("tool_calls")).toBeGreaterThan(0);
    expect(count("validation_runs WHERE exit_code = 0")).toBeGreaterThan(0);
    expect(count("validation_runs WHERE exit_code <> 0")).toBeGreaterThan(0);
    expect(count("merges")).toBeGreaterThan(0);
    // Only a successful attempt is merged.
    expect(count("attempt_results WHERE status = 'success'")).toBe(count("merges"));
  });

  it("has goal gate evaluations with SUCCESS and PARTIAL verdicts, and only known verdicts", () => {
    const verdicts = values("SELECT DISTINCT verdict FROM goal_gate_evaluations ORDER BY 1");
    expect(verdicts).toEqual(expect.arrayContaining(["PARTIAL", "SUCCESS"]));
    expect(verdicts.every((v) => ["SUCCESS", "PARTIAL", "BLOCKED"].includes(v as string))).toBe(true);
  });
});

describe("demo coverage: telemetry", () => {
  it("has interaction, reasoning and event logs, reasoning with phases and confidence", () => {
    expect(values("SELECT DISTINCT log_type FROM orchestration_logs ORDER BY 1")).toEqual(["event", "interaction", "reasoning"]);
    expect(count("orchestration_logs WHERE log_type = 'reasoning' AND (reasoning_phase IS NULL OR confidence_level IS NULL)")).toBe(0);
    expect(values("SELECT count(DISTINCT reasoning_phase) FROM orchestration_logs")[0]).toBeGreaterThanOrEqual(5);
  });

  it("stores redacted log rows without the secret", () => {
    expect(count("orchestration_logs WHERE redacted = 1")).toBeGreaterThan(0);
    expect(count("orchestration_logs WHERE redacted = 1 AND content NOT LIKE '%[REDACTED:%'")).toBe(0);
    expect(count("orchestration_logs WHERE instr(content, 'sk-') > 0")).toBe(0);
  });

  it("has token usage for several agent types and models", () => {
    expect(values("SELECT count(DISTINCT agent_type) FROM token_usage")[0]).toBeGreaterThan(2);
    expect(values("SELECT count(DISTINCT model) FROM token_usage")[0]).toBeGreaterThan(1);
  });
});
