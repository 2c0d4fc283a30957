/**
 * Demo data must be honest: it is what people first see of a ledger whose point is that claims are
 * not facts. Every row is checked against the domain rules recomputed from the final rows, so a
 * generator shortcut that a real service could never take shows up here.
 */
import type Database from "better-sqlite3";
import { getTableColumns, getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createMemoryDb } from "@/db/client";
import * as schema from "@/db/schema";
import { type GateGoal, type GateTask, evaluateCompletion } from "@/server/domain/completion-gate";
import type { CriterionState, CriterionStatus } from "@/server/domain/criteria";
import { validateGoalContract } from "@/server/domain/goal-contract";
import type { AttemptEvidence } from "@/server/domain/goal-gate";
import { MOVE_RULES, type TaskMove, type TaskStatus, type Verification } from "@/server/domain/task-machine";
import { type AttemptHistoryEntry, evaluateAttempt } from "@/server/domain/two-gate";
import { generateDemoData } from "./generate";

const NOW = new Date("2026-11-21T12:00:00Z");
const DAY = 86_400_000;
/** Server-wide tables the generator seeds once; their timestamps are covered in generate.test.ts. */
const GLOBAL_TABLES = new Set(["configuration", "model_config", "workflow_transitions", "agent_markers", "workflow_special_rules"]);

type Row = Record<string, unknown>;
let sqlite: Database.Database;

beforeAll(async () => {
  const db = createMemoryDb();
  // Two seeds in one database: consistency must hold for each and across both.
  await generateDemoData(db, { sessions: 60, seed: 1, now: NOW });
  await generateDemoData(db, { sessions: 20, seed: 2, now: NOW, logsPerSession: 20 });
  sqlite = db.$client;
});

function all<T = Row>(sql: string, ...params: unknown[]): T[] {
  return sqlite.prepare(sql).all(...params) as T[];
}

function groupBy<T extends Row>(rows: T[], key: string): Map<unknown, T[]> {
  const groups = new Map<unknown, T[]>();
  for (const row of rows) {
    const list = groups.get(row[key]) ?? [];
    list.push(row);
    groups.set(row[key], list);
  }
  return groups;
}

interface TransitionRow {
  id: number;
  task_id: number;
  move: string;
  from_status: TaskStatus | null;
  to_status: TaskStatus;
  actor: string;
  principal_id: string | null;
  role: string;
  claimant: string | null;
}

describe("demo honesty: tasks", () => {
  it("completes a task of an enforce session only after a verify by someone other than its claimant, then a complete move", () => {
    const tasks = all<{ id: number }>(
      "SELECT t.id FROM tasks t JOIN sessions s ON s.id = t.session_id WHERE s.enforcement = 'enforce' AND t.status = 'completed'",
    );
    expect(tasks.length).toBeGreaterThan(100);
    const transitions = groupBy(all<TransitionRow & Row>("SELECT * FROM task_transitions ORDER BY id"), "task_id");
    for (const { id } of tasks) {
      const history = transitions.get(id) ?? [];
      const verifyAt = history.findLastIndex((t) => t.move === "verify");
      const completeAt = history.findLastIndex((t) => t.move === "complete");
      expect(verifyAt, `task ${id} has a verify move`).toBeGreaterThan(0);
      expect(completeAt, `task ${id} completes after its verify`).toBeGreaterThan(verifyAt);
      const claim = history.slice(0, verifyAt).findLast((t) => t.move === "claim");
      const verify = history[verifyAt]!;
      expect(claim, `task ${id} was claimed before the verify`).toBeDefined();
      expect(verify.actor).not.toBe(claim!.actor);
      expect(verify.principal_id).not.toBe(claim!.principal_id);
      expect(verify.claimant).toBe(claim!.actor);
      expect(history.some((t) => t.move === "report")).toBe(false);
    }
  });

  it("never lets a claimant verify or block their own claim, in any session", () => {
    const judged = all<{ n: number }>(
      `SELECT count(*) AS n FROM task_transitions j WHERE j.move IN ('verify', 'block') AND (j.claimant IS NULL OR j.claimant = j.actor OR j.principal_id = (
         SELECT c.principal_id FROM task_transitions c WHERE c.task_id = j.task_id AND c.move = 'claim' AND c.id < j.id ORDER BY c.id DESC LIMIT 1))`,
    );
    expect(judged[0]!.n).toBe(0);
  });

  it("walks every task through legal moves by allowed roles, each from the status the last one reached", () => {
    const observe = new Set(all<{ id: string }>("SELECT id FROM sessions WHERE enforcement = 'observe'").map((s) => s.id));
    const histories = groupBy(all<TransitionRow & Row & { session_id: string }>("SELECT * FROM task_transitions ORDER BY id"), "task_id");
    expect(histories.size).toBe(all("SELECT id FROM tasks").length);
    for (const [taskId, history] of histories) {
      expect(history[0], `task ${String(taskId)} starts with create`).toMatchObject({ move: "create", from_status: null, to_status: "pending" });
      for (let i = 1; i < history.length; i++) {
        const step = history[i]!;
        expect(step.from_status, `task ${String(taskId)} step ${i}`).toBe(history[i - 1]!.to_status);
        if (step.move === "report") {
          // Reported statuses that skip the machine are an observe session's privilege.
          expect(observe.has(step.session_id)).toBe(true);
          continue;
        }
        const rule = MOVE_RULES[step.move as TaskMove];
        expect(rule, `task ${String(taskId)}: ${step.move} is a move`).toBeDefined();
        expect(rule.from).toContain(step.from_status);
        expect(step.to_status).toBe(rule.to);
        expect(rule.roles).toContain(step.role);
      }
    }
  });

  it("keeps every task's status equal to the to_status of its last transition", () => {
    const mismatched = all(
      `SELECT t.id, t.status, (SELECT x.to_status FROM task_transitions x WHERE x.task_id = t.id ORDER BY x.id DESC LIMIT 1) AS last
       FROM tasks t WHERE last IS NOT t.status`,
    );
    expect(mismatched).toEqual([]);
  });

  it("keeps on each task row who claimed, verified and completed it, in that order, verifier never the claimant", () => {
    const wrong = all(
      `SELECT id, status FROM tasks WHERE
         (status IN ('verified', 'completed') AND verification = 'verified' AND (
            claimed_by IS NULL OR verified_by IS NULL OR verified_by = claimed_by OR verified_by_principal IS claimed_by_principal
            OR claimed_at > verified_at OR proofpack IS NULL OR json_extract(proofpack, '$.verdict') <> 'PASSED'))
         OR (status = 'completed' AND (completed_by IS NULL OR completed_at IS NULL OR completed_at < coalesce(verified_at, 0)))
         OR (status IN ('claimed', 'blocked') AND claimed_by IS NULL)
         OR (status IN ('pending', 'in_progress') AND (claimed_by IS NOT NULL OR verified_by IS NOT NULL OR blocked_by IS NOT NULL OR reset_requested = 1))`,
    );
    expect(wrong).toEqual([]);
  });

  it("records every unverified completion with an unverified_completion event", () => {
    const unverified = all<{ id: number }>("SELECT id FROM tasks WHERE verification = 'none'");
    expect(unverified.length).toBeGreaterThan(0);
    for (const { id } of unverified) {
      expect(all("SELECT 1 FROM events WHERE type = 'unverified_completion' AND entity = 'task' AND entity_id = ?", String(id))).toHaveLength(1);
    }
  });
});

describe("demo honesty: the events log", () => {
  it.each([
    ["task", "tasks"],
    ["completion_check", "completion_checks"],
    ["goal", "goals"],
    ["attempt", "attempts"],
    ["session", "sessions"],
  ])("gives every %s at least one events row", (entity, table) => {
    const silent = all(`SELECT id FROM "${table}" WHERE CAST(id AS TEXT) NOT IN (SELECT entity_id FROM events WHERE entity = ?)`, entity);
    expect(silent).toEqual([]);
  });

  it("gives every criterion whose status was reported at least one events row", () => {
    const silent = all(
      "SELECT id FROM success_criteria WHERE status <> 'pending' AND CAST(id AS TEXT) NOT IN (SELECT entity_id FROM events WHERE entity = 'criterion')",
    );
    expect(silent).toEqual([]);
  });

  it("gives every criterion, pending ones included, at least one events row", () => {
    const silent = all<{ id: number; status: string }>(
      "SELECT id, status FROM success_criteria WHERE CAST(id AS TEXT) NOT IN (SELECT entity_id FROM events WHERE entity = 'criterion')",
    );
    expect(silent).toEqual([]);
  });

  it("writes one task event per task transition", () => {
    const transitions = all<{ id: string; n: number }>("SELECT CAST(task_id AS TEXT) AS id, count(*) AS n FROM task_transitions GROUP BY task_id ORDER BY 1");
    const events = all<{ id: string; n: number }>("SELECT entity_id AS id, count(*) AS n FROM events WHERE entity = 'task' GROUP BY entity_id ORDER BY 1");
    expect(transitions.length).toBeGreaterThan(500);
    expect(events).toEqual(transitions);
  });

  it("orders each session's events in time, so tailing by id replays history in order", () => {
    const backwards = all(
      `SELECT e.id FROM events e JOIN events p ON p.session_id = e.session_id AND p.id = (
         SELECT max(id) FROM events q WHERE q.session_id = e.session_id AND q.id < e.id) WHERE p.at > e.at`,
    );
    expect(backwards).toEqual([]);
  });
});

describe("demo honesty: criteria history", () => {
  it("explains every criterion's status and verifier finding by its last update, with who made it", () => {
    const criteria = all<{ id: number; status: string; verifier_status: string | null; evidence: string | null }>(
      "SELECT id, status, verifier_status, evidence FROM success_criteria",
    );
    const updates = groupBy(
      all<Row & { criterion_id: number; kind: string; to_status: string; evidence: string | null; role: string }>(
        "SELECT * FROM criterion_updates ORDER BY id",
      ),
      "criterion_id",
    );
    for (const c of criteria) {
      const history = updates.get(c.id) ?? [];
      expect(history[0]?.kind, `criterion ${c.id} starts with create`).toBe("create");
      const claim = history.findLast((u) => u.kind === "create" || u.kind === "claim");
      expect(claim?.to_status, `criterion ${c.id} status`).toBe(c.status);
      if (claim?.kind === "claim") expect(claim.evidence, `criterion ${c.id} evidence`).toBe(c.evidence);
      const finding = history.findLast((u) => u.kind === "verify");
      expect(finding?.to_status ?? null, `criterion ${c.id} verifier status`).toBe(c.verifier_status);
      if (finding) expect(finding.role).toBe("verifier");
    }
  });
});

describe("demo honesty: session rollups", () => {
  it("keeps every rollup column equal to a count of the rows", () => {
    const recomputed = all(
      `SELECT s.id,
         s.tasks_total - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id) AS tasks_total,
         s.tasks_pending - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'pending') AS tasks_pending,
         s.tasks_in_progress - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'in_progress') AS tasks_in_progress,
         s.tasks_claimed - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'claimed') AS tasks_claimed,
         s.tasks_verified - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'verified') AS tasks_verified,
         s.tasks_blocked - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'blocked') AS tasks_blocked,
         s.tasks_completed - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'completed') AS tasks_completed,
         s.tasks_unverified - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'completed' AND t.verification = 'none') AS tasks_unverified,
         s.reset_requests - (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'blocked' AND t.reset_requested = 1) AS reset_requests,
         s.criteria_total - (SELECT count(*) FROM success_criteria c WHERE c.session_id = s.id) AS criteria_total,
         s.criteria_required - (SELECT count(*) FROM success_criteria c WHERE c.session_id = s.id AND c.required_for_completion = 1) AS criteria_required,
         s.criteria_required_met - (SELECT count(*) FROM success_criteria c WHERE c.session_id = s.id AND c.required_for_completion = 1
           AND coalesce(c.verifier_status, c.status) = 'met') AS criteria_required_met
       FROM sessions s`,
    );
    expect(recomputed).toHaveLength(80);
    const drift = recomputed.filter((row) => Object.entries(row).some(([key, value]) => key !== "id" && value !== 0));
    expect(drift).toEqual([]);
    // The rollups are not trivially zero.
    expect(all<{ n: number }>("SELECT sum(tasks_blocked) AS n FROM sessions")[0]!.n).toBeGreaterThan(0);
    expect(all<{ n: number }>("SELECT sum(tasks_unverified) AS n FROM sessions")[0]!.n).toBeGreaterThan(0);
    expect(all<{ n: number }>("SELECT sum(reset_requests) AS n FROM sessions")[0]!.n).toBeGreaterThan(0);
  });
});

interface CriterionRow {
  criterion: string;
  status: CriterionStatus;
  actual: string | null;
  evidence: string | null;
  required_for_completion: number;
  verifier_status: CriterionStatus | null;
  verifier_actual: string | null;
  verifier_evidence: string | null;
}

/** The completion gate's input, read back from a session's final rows. */
function gateInputOf(sessionId: string) {
  const criteria: CriterionState[] = all<CriterionRow>("SELECT * FROM success_criteria WHERE session_id = ? ORDER BY id", sessionId).map((c) => ({
    criterion: c.criterion,
    status: c.status,
    actual: c.actual,
    evidence: c.evidence,
    requiredForCompletion: c.required_for_completion === 1,
    verifierStatus: c.verifier_status,
    verifierActual: c.verifier_actual,
    verifierEvidence: c.verifier_evidence,
  }));
  const tasks: GateTask[] = all<{ key: string; title: string; status: TaskStatus; verification: Verification | null }>(
    "SELECT key, title, status, verification FROM tasks WHERE session_id = ? ORDER BY id",
    sessionId,
  );
  const contractGoals: GateGoal[] = all<{ id: number; goal_text: string; verdict: GateGoal["verdict"] }>(
    `SELECT g.id, g.goal_text, (SELECT e.verdict FROM goal_gate_evaluations e WHERE e.goal_id = g.id ORDER BY e.attempt_number DESC, e.id DESC LIMIT 1) AS verdict
     FROM goals g WHERE g.session_id = ? AND EXISTS (SELECT 1 FROM goal_contracts c WHERE c.goal_id = g.id) ORDER BY g.id`,
    sessionId,
  ).map((g) => ({ id: g.id, goalText: g.goal_text, verdict: g.verdict }));
  return { criteria, tasks, contractGoals };
}

interface CheckRow {
  id: number;
  session_id: string;
  accepted: number;
  reasons: string;
  met_count: number;
  total_count: number;
  details: string;
  /** The id of the check's completion.checked event. */
  event_id: number;
}

/** Each session's checks with the id of their event, to tell checks made after the last task move. */
function checksWithEvents(): CheckRow[] {
  return all<CheckRow>(
    `SELECT c.*, (SELECT e.id FROM events e WHERE e.entity = 'completion_check' AND e.entity_id = CAST(c.id AS TEXT)) AS event_id
     FROM completion_checks c ORDER BY c.id`,
  );
}

function expectCheckMatches(check: CheckRow): void {
  const verdict = evaluateCompletion(gateInputOf(check.session_id));
  expect(
    {
      accepted: check.accepted === 1,
      reasons: JSON.parse(check.reasons) as unknown,
      metCount: check.met_count,
      totalCount: check.total_count,
      details: JSON.parse(check.details) as unknown,
    },
    `completion check ${check.id} of ${check.session_id}`,
  ).toEqual({
    accepted: verdict.accepted,
    reasons: verdict.reasons,
    metCount: verdict.metCount,
    totalCount: verdict.totalCount,
    details: { discrepancies: verdict.discrepancies, externallyBlocked: verdict.externallyBlocked },
  });
}

describe("demo honesty: the completion gate", () => {
  it("ends every completed enforce session with an accepted check that the gate confirms on the final rows", () => {
    const sessions = all<{ id: string }>("SELECT id FROM sessions WHERE status = 'completed' AND enforcement = 'enforce'");
    expect(sessions.length).toBeGreaterThan(10);
    const bySession = groupBy(checksWithEvents() as (CheckRow & Row)[], "session_id");
    for (const { id } of sessions) {
      const checks = bySession.get(id) ?? [];
      const last = checks.at(-1);
      expect(last?.accepted, `session ${id} completed with an accepted check`).toBe(1);
      for (const check of checks.filter((c) => c.accepted === 1)) expectCheckMatches(check);
    }
  });

  it("agrees with the gate on every check made after a session's last task move, accepted or not", () => {
    const lastTaskEvent = new Map(
      all<{ session_id: string; last: number }>("SELECT session_id, max(id) AS last FROM events WHERE entity = 'task' GROUP BY session_id").map((r) => [
        r.session_id,
        r.last,
      ]),
    );
    const finalChecks = checksWithEvents().filter((c) => c.event_id > (lastTaskEvent.get(c.session_id) ?? 0));
    expect(finalChecks.filter((c) => c.accepted === 0).length).toBeGreaterThan(10);
    for (const check of finalChecks) expectCheckMatches(check);
  });

  it("never completes a session whose required work is undone under enforcement", () => {
    const undone = all(
      `SELECT s.id FROM sessions s WHERE s.status = 'completed' AND s.enforcement = 'enforce' AND (
         s.tasks_completed <> s.tasks_total OR s.tasks_unverified > 0 OR s.tasks_total = 0
         OR EXISTS (SELECT 1 FROM success_criteria c WHERE c.session_id = s.id AND c.required_for_completion = 1
                    AND coalesce(c.verifier_status, c.status) NOT IN ('met', 'blocked')))`,
    );
    expect(undone).toEqual([]);
  });
});

interface EvaluationRow {
  id: number;
  goal_id: number;
  contract_id: number;
  attempt_id: number;
  attempt_number: number;
  max_attempts: number | null;
  trust_score: number;
  trust_passed: number;
  goal_status: string;
  met_count: number;
  total_count: number;
  criteria_results: string;
  verdict: string;
  reason: string;
  pivot: string;
}

function contractOf(contractId: number) {
  const contract = all<{ goal_text: string; goal_type: string | null; max_goal_attempts: number }>("SELECT * FROM goal_contracts WHERE id = ?", contractId)[0]!;
  const criteria = all<Row>("SELECT * FROM acceptance_criteria WHERE contract_id = ? ORDER BY position", contractId).map((c) => {
    const fields: Record<string, unknown> = {
      id: c.key,
      kind: c.kind,
      description: c.description,
      metric: c.metric,
      op: c.op,
      target: c.target,
      marker: c.marker,
      artifactPattern: c.artifact_pattern,
      minCount: c.min_count,
    };
    return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
  });
  return validateGoalContract({
    goalText: contract.goal_text,
    goalType: contract.goal_type,
    maxGoalAttempts: contract.max_goal_attempts,
    acceptanceCriteria: criteria,
  });
}

function evidenceOf(attemptId: number): AttemptEvidence {
  const result = all<{ metrics: string | null; markers: string | null; artifacts: string | null; verified_findings: number | null }>(
    "SELECT metrics, markers, artifacts, verified_findings FROM attempt_results WHERE attempt_id = ?",
    attemptId,
  );
  expect(result, `attempt ${attemptId} has one result`).toHaveLength(1);
  const { metrics, markers, artifacts, verified_findings } = result[0]!;
  const evidence: AttemptEvidence = {};
  if (metrics !== null) evidence.metrics = JSON.parse(metrics) as Record<string, number>;
  if (markers !== null) evidence.markers = JSON.parse(markers) as string[];
  if (artifacts !== null) evidence.artifacts = JSON.parse(artifacts) as string[];
  if (verified_findings !== null) evidence.verifiedFindings = verified_findings;
  return evidence;
}

describe("demo honesty: the two gates", () => {
  it("stores for every evaluation the verdict evaluateAttempt gives on its contract, evidence and trust score", () => {
    const evaluations = groupBy(all<EvaluationRow & Row>("SELECT * FROM goal_gate_evaluations ORDER BY goal_id, attempt_number"), "goal_id");
    expect(evaluations.size).toBeGreaterThan(10);
    for (const [goalId, rows] of evaluations) {
      const history: AttemptHistoryEntry[] = [];
      const implementations = all<{ id: number; model: string }>(
        "SELECT id, model FROM attempts WHERE goal_id = ? AND attempt_type = 'implementation' ORDER BY id",
        goalId,
      );
      rows.forEach((row, i) => {
        const label = `goal ${String(goalId)} attempt ${row.attempt_number}`;
        expect(row.attempt_number, label).toBe(i + 1);
        expect(implementations[i]?.id, `${label} is the goal's ${i + 1}th implementation attempt`).toBe(row.attempt_id);
        const trust = all<{ score: number }>("SELECT score FROM trust_scores WHERE attempt_id = ?", row.attempt_id);
        expect(
          trust.map((t) => t.score),
          `${label}'s trust score`,
        ).toEqual([row.trust_score]);

        const approach = implementations[i]!.model;
        const result = evaluateAttempt({
          contract: contractOf(row.contract_id),
          evidence: evidenceOf(row.attempt_id),
          trustScore: row.trust_score,
          attemptNumber: row.attempt_number,
          approach,
          history,
        });
        expect(row.verdict, label).toBe(result.verdict);
        expect(
          {
            reason: row.reason,
            goalStatus: row.goal_status,
            metCount: row.met_count,
            totalCount: row.total_count,
            trustPassed: row.trust_passed === 1,
            maxAttempts: row.max_attempts,
            criteriaResults: JSON.parse(row.criteria_results) as unknown,
            pivot: JSON.parse(row.pivot) as unknown,
          },
          label,
        ).toEqual({
          reason: result.reason,
          goalStatus: result.goal.overallStatus,
          metCount: result.goal.metCount,
          totalCount: result.goal.totalCount,
          trustPassed: result.trust.passed,
          maxAttempts: result.maxAttempts,
          criteriaResults: result.goal.criteriaResults,
          pivot: result.pivot,
        });
        history.push({ attemptNumber: row.attempt_number, approach, goal: result.goal, verdict: result.verdict });
      });
    }
  });

  it("evaluates a goal only against its own contract", () => {
    const foreign = all("SELECT e.id FROM goal_gate_evaluations e JOIN goal_contracts c ON c.id = e.contract_id WHERE c.goal_id <> e.goal_id");
    expect(foreign).toEqual([]);
    const evaluatedWithoutContract = all(
      "SELECT e.id FROM goal_gate_evaluations e WHERE NOT EXISTS (SELECT 1 FROM goal_contracts c WHERE c.id = e.contract_id)",
    );
    expect(evaluatedWithoutContract).toEqual([]);
  });

  it("stops attempting a goal once it succeeded or was blocked", () => {
    const afterEnd = all(
      `SELECT e.id FROM goal_gate_evaluations e WHERE EXISTS (
         SELECT 1 FROM goal_gate_evaluations p WHERE p.goal_id = e.goal_id AND p.attempt_number < e.attempt_number AND p.verdict IN ('SUCCESS', 'BLOCKED'))`,
    );
    expect(afterEnd).toEqual([]);
  });
});

describe("demo honesty: time", () => {
  it("dates every session row within [now - 91 days, now]", () => {
    const tables = Object.values(schema as Record<string, unknown>).filter((value): value is SQLiteTable => is(value, SQLiteTable));
    let checked = 0;
    for (const table of tables) {
      const name = getTableName(table);
      if (GLOBAL_TABLES.has(name)) continue;
      for (const column of Object.values(getTableColumns(table))) {
        if (column.columnType !== "SQLiteTimestamp") continue;
        const [range] = all<{ lo: number | null; hi: number | null; n: number }>(
          `SELECT min("${column.name}") AS lo, max("${column.name}") AS hi, count("${column.name}") AS n FROM "${name}"`,
        );
        if (range!.n === 0) continue;
        checked += 1;
        expect(range!.lo, `${name}.${column.name}`).toBeGreaterThanOrEqual(NOW.getTime() - 91 * DAY);
        expect(range!.hi, `${name}.${column.name}`).toBeLessThanOrEqual(NOW.getTime());
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it("ends every completed or failed session after it started and after its last event; active ones have not ended", () => {
    const ended = all<{ id: string; started_at: number; ended_at: number | null; status: string; last_event: number; first_event: number }>(
      `SELECT s.id, s.started_at, s.ended_at, s.status, (SELECT max(at) FROM events e WHERE e.session_id = s.id) AS last_event,
         (SELECT min(at) FROM events e WHERE e.session_id = s.id) AS first_event FROM sessions s`,
    );
    for (const s of ended) {
      expect(s.first_event, s.id).toBeGreaterThanOrEqual(s.started_at);
      if (s.status === "active") {
        expect(s.ended_at, s.id).toBeNull();
        continue;
      }
      expect(s.ended_at, s.id).not.toBeNull();
      expect(s.ended_at!, s.id).toBeGreaterThanOrEqual(s.started_at);
      expect(s.ended_at!, s.id).toBeGreaterThanOrEqual(s.last_event);
    }
  });

  it("moves each task's transitions forward in time", () => {
    const backwards = all(
      `SELECT x.id FROM task_transitions x JOIN task_transitions p ON p.task_id = x.task_id AND p.id = (
         SELECT max(id) FROM task_transitions q WHERE q.task_id = x.task_id AND q.id < x.id) WHERE p.at > x.at`,
    );
    expect(backwards).toEqual([]);
  });
});
