/**
 * The enforcement triggers on PostgreSQL (the custom migration db/migrations-pg/0001_enforcement.sql,
 * rendered from the same `Trigger` objects as SQLite's migrations) against SQLite's: the same raw
 * statements — the ones of db/enforcement*.test.ts and db/completion-gate.test.ts — run on a fresh
 * SQLite database and on a PostgreSQL database migrated by db/migrations-pg (the baseline's tables,
 * then the triggers), and each engine must give the same outcome (ok, or refused with the same
 * message, hence the same rule id) and leave the same rows in every table.
 *
 * It is in the vitest `pg` project: its PostgreSQL database is a copy of the project's migrated
 * template (test/support/pg-cluster.ts). Without PostgreSQL the harness says so and this half skips.
 */
// flake-risks time: recognises timestamps written during this run, to mask them in a comparison: a 40-day window
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { is } from "drizzle-orm";
import { SQLiteTable, getTableConfig } from "drizzle-orm/sqlite-core";
import { createMemoryDb } from "@/db/client";
import * as schema from "@/db/schema";
import { LEGAL_EDGES } from "@/server/domain/task-machine";
import { CARRIES, CLAIMANT, STATUSES, type Status, VERIFIER, setStatus } from "@/test/support/db-fixtures";
import { APPEND_ONLY_TABLES, PURGE_ONLY_DELETE_TABLES } from "./enforcement";
import { createTestDatabase } from "@/test/support/pg-cluster";
import { currentTriggers, pgEnforcementSql } from "./triggers/pg-enforcement";

const PG_MIGRATIONS = fileURLToPath(new URL("./migrations-pg", import.meta.url));
const JOURNAL = JSON.parse(fs.readFileSync(`${PG_MIGRATIONS}/meta/_journal.json`, "utf8")) as { entries: { tag: string }[] };
/** The PostgreSQL migration holding the triggers: the custom one whose tag ends in `_enforcement`. */
const ENFORCEMENT_TAG = JOURNAL.entries.find((e) => e.tag.endsWith("_enforcement"))?.tag;

describe("the committed PL/pgSQL migration (db/migrations-pg/*_enforcement.sql)", () => {
  it("is what db/triggers/pg-enforcement.ts renders (run `npm run db:enforcement` after changing the triggers)", () => {
    expect(ENFORCEMENT_TAG, "no *_enforcement entry in db/migrations-pg/meta/_journal.json").toBeDefined();
    expect(fs.readFileSync(`${PG_MIGRATIONS}/${ENFORCEMENT_TAG}.sql`, "utf8")).toBe(pgEnforcementSql());
  });

  it("creates one function and one trigger for every SQLite trigger but the sessions search index's three", () => {
    const sqlite = createMemoryDb().$client;
    const sqliteTriggers = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name NOT LIKE 'sessions_search_%'").pluck().all();
    const script = pgEnforcementSql();
    const pgTriggers = [...script.matchAll(/^CREATE OR REPLACE TRIGGER (\w+) /gm)].map((m) => m[1]);
    expect(pgTriggers.sort()).toEqual((sqliteTriggers as string[]).sort());
    expect([...script.matchAll(/^CREATE OR REPLACE FUNCTION pg_(\w+)\(\)/gm)].map((m) => m[1]).sort()).toEqual(pgTriggers.sort());
  });
  // PostgreSQL fires the triggers of one event in name order; SQLite runs the later-created first
  // (observed, not promised: db/enforcement-history.test.ts). Where two BEFORE triggers can refuse
  // the same statement, both orders must agree so both engines name the same rule.
  it("names the refusing BEFORE triggers of each event so that name order is SQLite's order (the later-created first)", () => {
    const refusing = currentTriggers().filter((t) => t.timing === "BEFORE" && t.body.some((action) => !("stmt" in action)));
    const groups = new Map<string, string[]>();
    for (const t of refusing) {
      const key = `${t.table} ${typeof t.event === "string" ? t.event : "UPDATE"}`;
      groups.set(key, [...(groups.get(key) ?? []), t.name]);
    }
    const shared = [...groups].filter(([, names]) => names.length > 1);
    expect(shared.map(([key]) => key).sort()).toEqual(["acceptance_criteria DELETE", "sessions UPDATE"]);
    for (const [, names] of shared) expect([...names].sort()).toEqual([...names].reverse());
  });
});

// ---------------------------------------------------------------------------------------------
// Scenarios: raw statements, each expected ok or refused with a rule id on SQLite.

/** A step: a statement expected to succeed, or [statement, the rule id prefix SQLite refuses it with]. */
type Step = string | readonly [string, string];
interface Scenario {
  name: string;
  steps: Step[];
}

/** A fixed start time, far from now, so day buckets are compared exactly. */
const T0 = 1_700_000_000_000;
const session = (id: string, enforcement: "enforce" | "observe" = "enforce") =>
  `INSERT INTO sessions (id, enforcement, started_at) VALUES ('${id}', '${enforcement}', ${T0})`;
const taskWhere = (sessionId: string, key: string) => `session_id = '${sessionId}' AND key = '${key}'`;
const taskId = (sessionId: string, key: string) => `(SELECT id FROM tasks WHERE ${taskWhere(sessionId, key)})`;
const updateTask = (sessionId: string, key: string, set: string) => `UPDATE tasks SET ${set} WHERE ${taskWhere(sessionId, key)}`;

const PATH: Record<Status, Status[]> = {
  pending: [],
  in_progress: ["in_progress"],
  claimed: ["in_progress", "claimed"],
  verified: ["in_progress", "claimed", "verified"],
  blocked: ["in_progress", "claimed", "blocked"],
  completed: ["in_progress", "claimed", "verified", "completed"],
};
/** A pending task walked along legal raw UPDATEs to `status`. */
const taskAt = (sessionId: string, key: string, status: Status): string[] => [
  `INSERT INTO tasks (session_id, key, title) VALUES ('${sessionId}', '${key}', 'task ${key}')`,
  ...PATH[status].map((step) => updateTask(sessionId, key, setStatus(step))),
];

const LEGAL = new Set(LEGAL_EDGES.map(([from, to]) => `${from}>${to}`));
const PAIRS = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => ({ from, to, legal: LEGAL.has(`${from}>${to}`) })));

function taskMachine(): Scenario[] {
  const enforce = PAIRS.map(({ from, to, legal }) => {
    const statement = updateTask("enf", "T1", setStatus(to));
    return {
      name: `enforce ${from} -> ${to}`,
      steps: [session("enf"), ...taskAt("enf", "T1", from), legal ? statement : ([statement, "task.forbidden_transition"] as const)],
    };
  });
  const observe = PAIRS.map(({ from, to, legal }) => ({
    name: `observe ${from} -> ${to}`,
    steps: [
      session("obs", "observe"),
      ...taskAt("obs", "T1", from),
      ...(legal
        ? [updateTask("obs", "T1", setStatus(to))]
        : [
            [updateTask("obs", "T1", `status = '${to}'`), "task.unverified_status"] as const,
            updateTask("obs", "T1", `status = '${to}', verification = 'none'`),
          ]),
    ],
  }));
  const enf = (name: string, status: Status, ...steps: Step[]) => ({ name, steps: [session("enf"), ...taskAt("enf", "T1", status), ...steps] });
  const obs = (name: string, status: Status, ...steps: Step[]) => ({ name, steps: [session("obs", "observe"), ...taskAt("obs", "T1", status), ...steps] });
  const u = (set: string) => updateTask("enf", "T1", set);
  const o = (set: string) => updateTask("obs", "T1", set);
  const refused = (statement: string, rule: string) => [statement, rule] as const;
  return [
    ...enforce,
    ...observe,
    enf("the issue's example: status='completed' on a claimed task", "claimed", refused(u("status='completed'"), "task.forbidden_transition")),
    enf("a reset request on a blocked task", "blocked", u("status = 'blocked', reset_requested = TRUE, reset_reason = 'flaky CI'")),
    enf(
      "a declined reset request",
      "blocked",
      u("blocked_at = 1000"),
      u("reset_requested = TRUE, reset_reason = 'flaky CI'"),
      u("status = 'blocked', reset_requested = FALSE, reset_requested_by = NULL, reset_reason = NULL"),
      `INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, role, reason, at) VALUES (${taskId("enf", "T1")}, 'enf', 'decline_reset', 'blocked', 'blocked', 'lead@example.com', 'lead', 'still failing', 5000)`,
    ),
    enf(
      "verify needs verification = 'verified' and a verifier",
      "claimed",
      refused(u("status = 'verified'"), "task.verification_required"),
      refused(u(`status = 'verified', verified_by = '${VERIFIER.label}'`), "task.verification_required"),
      refused(u("status = 'verified', verification = 'verified'"), "task.verification_required"),
      refused(u("status = 'verified', verification = 'none', verified_by = 'v'"), "task.verification_required"),
    ),
    ...(["verified", "completed"] as const).map((status) =>
      enf(
        `a ${status} task stays verified`,
        status,
        refused(u("verification = NULL"), "task.verification_required"),
        refused(u("verification = 'none'"), "task.verification_required"),
        refused(u("verified_by = NULL"), "task.verification_required"),
      ),
    ),
    enf("no unverified task in an enforce session", "in_progress", refused(u("verification = 'none'"), "task.verification_required")),
    obs(
      "an observe verify without a verifier is recorded unverified",
      "claimed",
      refused(o("status = 'verified'"), "task.unverified_status"),
      refused(o("status = 'verified', verification = 'verified'"), "task.unverified_status"),
      o("status = 'verified', verification = 'none'"),
      o("status = 'completed'"),
    ),
    obs(
      "an unverified completion is never laundered",
      "in_progress",
      o("status = 'completed', verification = 'none'"),
      refused(o("verification = NULL"), "task.unverified_status"),
      refused(o(CARRIES.verified), "task.unverified_status"),
    ),
    enf("task identity: session", "claimed", session("obs", "observe"), refused(u("session_id = 'obs'"), "task.identity_immutable")),
    enf("task identity: key", "claimed", refused(u("key = 'T2'"), "task.identity_immutable"), u("title = 'renamed', description = 'ok'")),
  ];
}

function claimant(): Scenario[] {
  const verify = (set: string) => `status = 'verified', verification = 'verified', ${set}`;
  const block = (set: string) => `status = 'blocked', ${set}`;
  const cases = [
    [verify(`verified_by = '${CLAIMANT.label}', verified_by_principal = 'token:other'`), "task.claimant_cannot_verify"],
    [verify(`verified_by = 'someone_else', verified_by_principal = '${CLAIMANT.principal}'`), "task.claimant_cannot_verify"],
    [block(`blocked_by = '${CLAIMANT.label}', blocked_by_principal = 'token:other'`), "task.claimant_cannot_block"],
    [block(`blocked_by = 'someone_else', blocked_by_principal = '${CLAIMANT.principal}'`), "task.claimant_cannot_block"],
    [block(`blocked_by_principal = '${CLAIMANT.principal}'`), "task.claimant_cannot_block"],
  ] as const;
  return [
    ...cases.flatMap(([set, rule]) =>
      (["enforce", "observe"] as const).map((policy) => ({
        name: `never the claimant (${policy}): ${set}`,
        steps: [session("s", policy), ...taskAt("s", "T1", "claimed"), [updateTask("s", "T1", set), rule] as const],
      })),
    ),
    {
      name: "a different label and principal may judge",
      steps: [
        session("enf"),
        ...taskAt("enf", "A", "claimed"),
        updateTask("enf", "A", verify("verified_by = 'verifier_2', verified_by_principal = 'token:verifier'")),
        ...taskAt("enf", "B", "claimed"),
        updateTask("enf", "B", block("blocked_by = 'verifier_2', blocked_by_principal = 'user:lead'")),
        ...taskAt("enf", "C", "claimed"),
        updateTask("enf", "C", "claimed_by_principal = NULL"),
        updateTask("enf", "C", verify("verified_by = 'qa_1', verified_by_principal = NULL")),
      ],
    },
    {
      name: "the claimant of a verified task is not rewritten into its verifier",
      steps: [session("enf"), ...taskAt("enf", "T1", "verified"), [updateTask("enf", "T1", `claimed_by = '${VERIFIER.label}'`), "task.claimant_cannot_verify"]],
    },
    ...[
      ["completed", "verified_by", "task.claimant_cannot_verify"],
      ["blocked", "blocked_by", "task.claimant_cannot_block"],
    ].map(([status, by, rule]) => ({
      name: `a ${status} task its claimant judged is not inserted`,
      steps: [
        session("obs", "observe"),
        [
          `INSERT INTO tasks (session_id, key, title, status, verification, claimed_by, ${by}) VALUES ('obs', 'T1', 't', '${status}', 'none', 'dev', 'dev')`,
          rule!,
        ] as const,
      ],
    })),
  ];
}

function creatingTasks(): Scenario[] {
  const insert = (policy: "enforce" | "observe", status: Status, verification: string | null, rule?: string): Scenario => {
    const statement = `INSERT INTO tasks (session_id, key, title, status, verification) VALUES ('s', 'T1', 't', '${status}', ${verification ? `'${verification}'` : "NULL"})`;
    return { name: `insert ${status}/${verification} (${policy})`, steps: [session("s", policy), rule ? [statement, rule] : statement] };
  };
  return [
    insert("enforce", "pending", null),
    ...STATUSES.filter((s) => s !== "pending").flatMap((status) => [null, "none", "verified"].map((v) => insert("enforce", status, v, "task.create_status"))),
    insert("enforce", "pending", "none", "task.create_status"),
    insert("enforce", "pending", "verified", "task.create_status"),
    ...(["verified", "blocked", "completed"] as const).flatMap((status) => [
      insert("observe", status, null, "task.unverified_status"),
      insert("observe", status, "verified", "task.unverified_status"),
      insert("observe", status, "none"),
    ]),
    ...(["pending", "in_progress", "claimed"] as const).map((status) => insert("observe", status, null)),
  ];
}

function criteriaAndContracts(): Scenario[] {
  const criterion = "INSERT INTO success_criteria (session_id, criterion) VALUES ('s1', 'coverage >= 80%')";
  const contract = (goal: string) => [
    `INSERT INTO goals (session_id, goal_text) VALUES ('s1', '${goal}')`,
    `INSERT INTO goal_contracts (goal_id, goal_text) VALUES ((SELECT max(id) FROM goals), '${goal}')`,
    addCriterion(goal, "AC1"),
  ];
  const contractOf = (goal: string) => `(SELECT c.id FROM goal_contracts c JOIN goals g ON g.id = c.goal_id WHERE g.goal_text = '${goal}')`;
  const addCriterion = (goal: string, key: string) =>
    `INSERT INTO acceptance_criteria (contract_id, key, position, kind, metric, op, target) VALUES (${contractOf(goal)}, '${key}', 1, 'metric_threshold', 'acc', '>=', 0.8)`;
  const evaluate = (goal: string, withContract: boolean) =>
    `INSERT INTO goal_gate_evaluations (goal_id, contract_id, attempt_number, trust_passed, goal_status, met_count, total_count, criteria_results, verdict, reason, actor)
       VALUES ((SELECT id FROM goals WHERE goal_text = '${goal}'), ${withContract ? contractOf(goal) : "NULL"}, 1, TRUE, 'NOT_MET', 0, 1, '[]', 'PARTIAL', 'not yet', 'verifier_1')`;
  const immutable = "goal_contract.immutable";
  return [
    {
      name: "a criterion's text and session never change",
      steps: [
        session("s1"),
        session("s2"),
        criterion,
        ["UPDATE success_criteria SET criterion = 'coverage >= 50%' WHERE id = 1", "criteria.immutable"],
        ["UPDATE success_criteria SET session_id = 's2' WHERE id = 1", "criteria.immutable"],
        ["UPDATE success_criteria SET status = 'met', criterion = 'anything' WHERE id = 1", "criteria.immutable"],
        `UPDATE success_criteria SET status = 'met', actual = '83%', evidence = 'coverage.txt', verifier_status = 'failed', required_for_completion = FALSE, criterion = criterion WHERE id = 1`,
      ],
    },
    {
      name: "a contract changes freely before an evaluation against it",
      steps: [
        session("s1"),
        ...contract("accuracy"),
        evaluate("accuracy", false),
        `UPDATE goal_contracts SET goal_text = 'accuracy v2', version = 2, max_goal_attempts = 5 WHERE id = ${contractOf("accuracy")}`,
        `UPDATE acceptance_criteria SET target = 0.9 WHERE key = 'AC1'`,
        addCriterion("accuracy", "AC2"),
      ],
    },
    {
      name: "a contract is frozen with its criteria once evaluated",
      steps: [
        session("s1"),
        ...contract("accuracy"),
        ...contract("latency"),
        evaluate("accuracy", true),
        [`UPDATE goal_contracts SET goal_text = 'easier' WHERE id = ${contractOf("accuracy")}`, immutable],
        [`UPDATE goal_contracts SET max_goal_attempts = 99 WHERE id = ${contractOf("accuracy")}`, immutable],
        [`UPDATE acceptance_criteria SET target = 0.1 WHERE contract_id = ${contractOf("accuracy")}`, immutable],
        [`DELETE FROM acceptance_criteria WHERE contract_id = ${contractOf("accuracy")}`, immutable],
        [`DELETE FROM goal_contracts WHERE id = ${contractOf("accuracy")}`, "purge_only:"],
        `UPDATE goal_contracts SET goal_text = 'latency v2' WHERE id = ${contractOf("latency")}`,
        addCriterion("latency", "AC2"),
        [addCriterion("accuracy", "AC2"), immutable],
      ],
    },
    {
      name: "criteria of a contract nobody evaluated are still purge-only",
      steps: [session("s1"), ...contract("g2"), ["DELETE FROM acceptance_criteria WHERE id = 1", "purge_only:"]],
    },
  ];
}

/** One valid row in every table that hangs off session `s` (db/enforcement-history.test.ts's fixture). */
function populateSession(s: string): string[] {
  const latest = (table: string) => `(SELECT max(id) FROM ${table})`;
  const insert = (table: string, values: Record<string, string | number | boolean>) => {
    const literal = (v: string | number | boolean) => (typeof v === "string" ? (v.startsWith("(SELECT") ? v : `'${v}'`) : String(v).toUpperCase());
    return `INSERT INTO ${table} (${Object.keys(values)
      .map((c) => `"${c}"`)
      .join(", ")}) VALUES (${Object.values(values).map(literal).join(", ")})`;
  };
  const ss = { session_id: s };
  return [
    session(s),
    ...taskAt(s, "T1", "claimed"),
    insert("task_transitions", { ...ss, task_id: taskId(s, "T1"), move: "claim", from_status: "pending", to_status: "claimed", actor: "developer_1", at: T0 }),
    insert("success_criteria", { ...ss, criterion: "tests pass" }),
    insert("criterion_updates", { ...ss, criterion_id: latest("success_criteria"), kind: "create", actor: "pm" }),
    insert("completion_checks", { ...ss, accepted: false, reasons: "[]", met_count: 0, total_count: 1, actor: "orchestrator", at: T0 }),
    insert("goals", { ...ss, goal_text: "ship it" }),
    insert("validation_steps", { goal_id: latest("goals"), order: 1, command: "npm test" }),
    insert("branches", { ...ss, name: "main" }),
    insert("worktrees", { branch_id: latest("branches"), path: "/tmp/wt" }),
    insert("attempts", { goal_id: latest("goals"), worktree_id: latest("worktrees"), timestamp: T0 }),
    insert("tools", { ...ss, name: "bash" }),
    insert("attempt_tools", { attempt_id: latest("attempts"), tool_id: latest("tools") }),
    insert("attempt_results", { attempt_id: latest("attempts"), status: "success" }),
    insert("tool_calls", { attempt_id: latest("attempts"), order: 1, tool_id: latest("tools"), tool_name: "bash" }),
    insert("validation_runs", { validation_step_id: latest("validation_steps"), attempt_result_id: latest("attempt_results"), exit_code: 0 }),
    insert("merges", {
      from_branch_id: latest("branches"),
      from_commit_sha: "a",
      to_branch_id: latest("branches"),
      to_commit_sha: "b",
      result_commit_sha: "c",
    }),
    insert("goal_contracts", { goal_id: latest("goals"), goal_text: "ship it" }),
    insert("acceptance_criteria", { contract_id: latest("goal_contracts"), key: "AC1", position: 1, kind: "finding_count", min_count: 1 }),
    insert("goal_gate_evaluations", {
      goal_id: latest("goals"),
      contract_id: latest("goal_contracts"),
      attempt_id: latest("attempts"),
      attempt_number: 1,
      trust_passed: true,
      goal_status: "MET",
      met_count: 1,
      total_count: 1,
      criteria_results: "[]",
      verdict: "SUCCESS",
      reason: "all met",
      actor: "verifier_1",
    }),
    insert("trust_scores", { attempt_id: latest("attempts"), score: 90, actor: "verifier_1" }),
    insert("orchestration_logs", { ...ss, agent_type: "pm", content: "hello" }),
    insert("state_snapshots", { ...ss, state_type: "pm", state_data: "{}" }),
    insert("token_usage", { ...ss, agent_type: "pm", tokens_estimated: 10, timestamp: T0 }),
    insert("skill_outputs", { ...ss, skill_name: "lint", output_data: "{}" }),
    insert("decisions", { ...ss, decision_type: "plan", decision_data: "{}" }),
    insert("development_plans", { ...ss, original_prompt: "p", plan_text: "t", phases: "[]", total_phases: 1 }),
    insert("context_packages", { ...ss, package_type: "research", file_path: "a.md", producer_agent: "pm", summary: "s" }),
    insert("context_package_consumers", { package_id: latest("context_packages"), agent_type: "developer" }),
    insert("consumption_scope", {
      ...ss,
      scope_id: `${s}-scope`,
      group_id: "A",
      agent_type: "developer",
      iteration: 1,
      package_id: latest("context_packages"),
    }),
    insert("events", { ...ss, type: "task.claimed", entity: "task", actor: "developer_1" }),
    insert("runtime_sessions", { runtime: "claude-code", external_id: `rt-${s}`, source: "startup" }),
    insert("runtime_session_links", { session_id: s, runtime_session_id: latest("runtime_sessions") }),
  ];
}

function history(timeColumn: (table: string) => string): Scenario[] {
  const appendOnly = APPEND_ONLY_TABLES.map((table) => {
    const column = timeColumn(table);
    const id = `(SELECT max(id) FROM ${table})`;
    return {
      name: `${table} refuses UPDATE and DELETE`,
      steps: [
        ...populateSession("s1"),
        [`UPDATE ${table} SET "${column}" = "${column}" - 86400000 WHERE id = ${id}`, `append_only: ${table} `] as const,
        [`DELETE FROM ${table} WHERE id = ${id}`, `append_only: ${table} `] as const,
      ],
    };
  });
  const purgeOnly = PURGE_ONLY_DELETE_TABLES.map((table) => ({
    name: `${table} refuses DELETE outside a purge`,
    // The fixture's contract was evaluated: its criterion is refused by two triggers, and both engines name the contract rule.
    steps: [
      ...populateSession("s1"),
      [
        `DELETE FROM ${table} WHERE id = ${table === "sessions" ? "'s1'" : `(SELECT max(id) FROM ${table})`}`,
        table === "acceptance_criteria" ? "goal_contract.immutable" : `purge_only: ${table} `,
      ] as const,
    ],
  }));
  const startPurge = "INSERT INTO purges (actor, reason) VALUES ('admin', 'retention')";
  return [
    ...appendOnly,
    ...purgeOnly,
    {
      name: "a purge deletes a whole session through every child table, recounts the rollups, then deletes are refused again",
      steps: [
        ...populateSession("s1"),
        startPurge,
        "DELETE FROM sessions WHERE id = 's1'",
        "UPDATE purges SET finished_at = 1000, sessions_deleted = 1 WHERE id = 1",
        ...populateSession("s2"),
        ["DELETE FROM sessions WHERE id = 's2'", "purge_only:"],
        ["DELETE FROM tasks WHERE session_id = 's2'", "purge_only:"],
        ["DELETE FROM orchestration_logs", "append_only:"],
      ],
    },
    {
      name: "a purge is marked finished once, never changed after, and never deleted",
      steps: [
        startPurge,
        ["UPDATE purges SET reason = 'something else' WHERE id = 1", "append_only:"],
        ["UPDATE purges SET actor = 'someone' WHERE id = 1", "append_only:"],
        ["DELETE FROM purges WHERE id = 1", "append_only:"],
        "UPDATE purges SET finished_at = 1000, sessions_deleted = 0 WHERE id = 1",
        ["UPDATE purges SET finished_at = NULL WHERE id = 1", "append_only:"],
        ["UPDATE purges SET finished_at = 2000 WHERE id = 1", "append_only:"],
        ["UPDATE purges SET sessions_deleted = 5 WHERE id = 1", "append_only:"],
        ["DELETE FROM purges WHERE id = 1", "append_only:"],
      ],
    },
    {
      name: "an open purge lets history rows go but never lets them change",
      steps: [...populateSession("s1"), startPurge, ["UPDATE task_transitions SET actor = 'x'", "append_only:"], "DELETE FROM task_transitions"],
    },
  ];
}

/** db/enforcement-rollups.test.ts's scripted sequence: the per-session counters and the analytics rollups of current state. */
function sessionRollups(): Scenario {
  const criterion = (s: string, text: string, columns: Record<string, string> = {}) => {
    const names = ["session_id", "criterion", ...Object.keys(columns)];
    return `INSERT INTO success_criteria (${names.join(", ")}) VALUES ('${s}', '${text}'${Object.values(columns)
      .map((v) => `, ${v}`)
      .join("")})`;
  };
  const doomed = [
    ["a", "todo"],
    ["a", "working"],
    ["a", "blocked"],
    ["a", "claimed"],
    ["a", "verified"],
    ["b", "imported_verified"],
    ["b", "imported_blocked"],
  ];
  return {
    name: "session counters and current-state analytics rollups over a scripted sequence and a purge",
    steps: [
      session("a"),
      session("b", "observe"),
      session("c"),
      ...taskAt("a", "done", "completed"),
      ...taskAt("a", "blocked", "blocked"),
      ...taskAt("a", "claimed", "claimed"),
      ...taskAt("a", "verified", "verified"),
      ...taskAt("a", "working", "in_progress"),
      ...taskAt("a", "todo", "pending"),
      ...taskAt("c", "c1", "completed"),
      ...taskAt("c", "c2", "blocked"),
      `INSERT INTO tasks (session_id, key, title, status, verification, reset_requested) VALUES
      ('b', 'imported_done', 't', 'completed', 'none', FALSE), ('b', 'imported_verified', 't', 'verified', 'none', FALSE),
      ('b', 'imported_blocked', 't', 'blocked', 'none', TRUE), ('b', 'imported_claimed', 't', 'claimed', NULL, FALSE),
      ('b', 'imported_working', 't', 'in_progress', NULL, FALSE), ('b', 'todo', 't', 'pending', NULL, FALSE)`,
      updateTask("b", "todo", "status = 'completed', verification = 'none'"),
      updateTask("b", "imported_verified", "status = 'completed'"),
      updateTask("b", "todo", "status = 'pending', verification = 'none'"),
      "UPDATE tasks SET reset_requested = TRUE WHERE key IN ('blocked', 'c2')",
      updateTask("a", "working", "reset_requested = TRUE"),
      updateTask("a", "blocked", "status = 'pending', reset_requested = FALSE, claimed_by = NULL, blocked_by = NULL, blocked_by_principal = NULL"),
      updateTask("a", "blocked", setStatus("claimed")),
      updateTask("a", "claimed", setStatus("verified")),
      updateTask("a", "verified", setStatus("completed")),
      criterion("a", "pending required"),
      criterion("a", "met required", { status: "'met'" }),
      criterion("a", "met optional", { required_for_completion: "FALSE" }),
      "UPDATE success_criteria SET status = 'met' WHERE criterion = 'met optional'",
      criterion("a", "verifier says met", { verifier_status: "'met'" }),
      criterion("a", "verifier says failed", { status: "'met'" }),
      "UPDATE success_criteria SET verifier_status = 'failed' WHERE criterion = 'verifier says failed'",
      criterion("b", "observe criterion", { status: "'met'" }),
      criterion("c", "c criterion", { status: "'met'" }),
      "UPDATE success_criteria SET status = 'met', actual = 'ok' WHERE criterion = 'pending required'",
      "UPDATE success_criteria SET required_for_completion = TRUE WHERE criterion = 'met optional'",
      "UPDATE success_criteria SET verifier_status = NULL WHERE criterion = 'verifier says met'",
      "UPDATE success_criteria SET verifier_status = 'met' WHERE criterion = 'verifier says failed'",
      "UPDATE success_criteria SET status = 'blocked', evidence = 'external' WHERE criterion = 'observe criterion'",
      "UPDATE success_criteria SET required_for_completion = FALSE WHERE criterion = 'met required'",
      "UPDATE sessions SET started_at = started_at - 3 * 86400000 WHERE id IN ('a', 'b')",
      "UPDATE success_criteria SET status = 'failed' WHERE criterion = 'observe criterion'",
      `INSERT INTO sessions (id, enforcement, source, models, started_at) VALUES ('d', 'observe', 'demo', '{"developer": "model-x"}', ${T0})`,
      "INSERT INTO tasks (session_id, key, title, status, verification, assignee) VALUES ('d', 'done', 't', 'completed', 'none', 'developer_2')",
      "UPDATE tasks SET claimed_by = 'developer_4' WHERE session_id = 'd'",
      updateTask("b", "imported_done", "assignee = 'developer_3'"),
      // Literal values: PostgreSQL multiplies two integer literals in 32 bits and overflows.
      updateTask("b", "imported_done", `completed_at = ${86_400_000 * 20_000}`),
      updateTask("b", "imported_verified", `updated_at = ${86_400_000 * 20_001}`),
      "INSERT INTO purges (actor, reason) VALUES ('admin', 'cleanup')",
      `DELETE FROM tasks WHERE id IN (${doomed.map(([s, key]) => taskId(s!, key!)).join(", ")})`,
      "DELETE FROM success_criteria WHERE criterion IN ('met optional', 'verifier says failed')",
      "DELETE FROM sessions WHERE id = 'c'",
      "UPDATE purges SET finished_at = 1 WHERE finished_at IS NULL",
    ],
  };
}

/** The history figures: claims judged, blocked spells and resets, checks, attempts and their results, tokens; then a purge's recount. */
function historyRollups(): Scenario {
  const DAY = 86_400_000;
  const move = (key: string, name: string, from: Status | null, to: Status, actor: string, at: number, claimant: string | null = null) =>
    `INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, claimant, at) VALUES (${taskId("h", key)}, 'h', '${name}', ${from ? `'${from}'` : "NULL"}, '${to}', '${actor}', ${claimant ? `'${claimant}'` : "NULL"}, ${at})`;
  const attempt = (goal: string, type: string, model: string | null, at: number) =>
    `INSERT INTO attempts (goal_id, attempt_type, model, timestamp) VALUES ((SELECT id FROM goals WHERE goal_text = '${goal}'), '${type}', ${model ? `'${model}'` : "NULL"}, ${at})`;
  const result = (status: string) => `INSERT INTO attempt_results (attempt_id, status) VALUES ((SELECT max(id) FROM attempts), '${status}')`;
  return {
    name: "history rollups (claims, judgements, spells, resets, checks, attempts, tokens) and the purge's recount",
    steps: [
      `INSERT INTO sessions (id, enforcement, source, models, started_at) VALUES ('h', 'observe', 'bazinga', '{"developer": "model-a", "qa": "model-q"}', ${T0})`,
      ...taskAt("h", "A", "pending"),
      ...taskAt("h", "B", "pending"),
      move("A", "claim", "in_progress", "claimed", "developer_1", T0 + 1_000),
      move("A", "verify", "claimed", "verified", "qa_1", T0 + 61_000, "developer_1"),
      move("B", "claim", "in_progress", "claimed", "developer_2", T0 + DAY),
      move("B", "block", "claimed", "blocked", "qa_1", T0 + DAY + 5_000, "developer_2"),
      move("B", "request_reset", "blocked", "blocked", "developer_2", T0 + DAY + 6_000),
      move("B", "approve_reset", "blocked", "pending", "lead", T0 + DAY + 9_000, "developer_2"),
      move("B", "claim", "pending", "claimed", "developer_2", T0 + 2 * DAY),
      move("B", "block", "claimed", "blocked", "qa_1", T0 + 2 * DAY + 1_000, "developer_2"),
      move("B", "report", "blocked", "in_progress", "orchestrator", T0 + 2 * DAY + 4_000, "developer_2"),
      "INSERT INTO completion_checks (session_id, accepted, reasons, met_count, total_count, actor, at) VALUES ('h', FALSE, '[]', 0, 1, 'orchestrator', " +
        (T0 + 3_000) +
        ")",
      "INSERT INTO completion_checks (session_id, accepted, reasons, met_count, total_count, actor, at) VALUES ('h', TRUE, '[]', 1, 1, 'orchestrator', " +
        (T0 + 4_000) +
        ")",
      "INSERT INTO goals (session_id, goal_text) VALUES ('h', 'g1')",
      "INSERT INTO goals (session_id, goal_text) VALUES ('h', 'g2')",
      attempt("g1", "breakdown", "model-b", T0),
      attempt("g1", "implementation", "model-a", T0 + 10_000),
      result("error"),
      attempt("g1", "implementation", "model-a", T0 + 20_000),
      result("success"),
      attempt("g1", "implementation", null, T0 + DAY),
      attempt("g2", "implementation", "model-c", T0 + 30_000),
      result("timeout"),
      `INSERT INTO token_usage (session_id, agent_type, agent_id, model, tokens_estimated, timestamp) VALUES ('h', 'developer', 'developer_1', 'model-a', 1200, ${T0})`,
      `INSERT INTO token_usage (session_id, agent_type, agent_id, model, tokens_estimated, timestamp) VALUES ('h', 'qa', NULL, NULL, 300, ${T0 + DAY})`,
      "INSERT INTO purges (actor, reason) VALUES ('admin', 'recount')",
      "UPDATE purges SET finished_at = 1 WHERE finished_at IS NULL",
    ],
  };
}

/**
 * Statements writing several rows: PostgreSQL runs AFTER ROW triggers once the statement has written
 * every row, SQLite right after each row, so a trigger reading its own table sees the statement's
 * later rows only on PostgreSQL.
 */
function multiRow(): Scenario[] {
  const goal = "INSERT INTO goals (session_id, goal_text) VALUES ('m', 'g')";
  const attempt = (at: number) => `INSERT INTO attempts (goal_id, attempt_type, model, timestamp) VALUES (1, 'implementation', 'model-a', ${T0 + at})`;
  return [
    {
      name: "two results of one goal's attempts in one INSERT, both successes",
      steps: [session("m"), goal, attempt(0), attempt(1_000), "INSERT INTO attempt_results (attempt_id, status) VALUES (1, 'success'), (2, 'success')"],
    },
    {
      name: "two results of one goal's attempts in one INSERT, an error then a success",
      steps: [session("m"), goal, attempt(0), attempt(1_000), "INSERT INTO attempt_results (attempt_id, status) VALUES (1, 'error'), (2, 'success')"],
    },
    {
      name: "a claim and its verdict in one INSERT",
      steps: [
        session("m", "observe"),
        ...taskAt("m", "A", "pending"),
        `INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, claimant, at) VALUES
          (1, 'm', 'claim', 'pending', 'claimed', 'developer_1', NULL, ${T0}), (1, 'm', 'block', 'claimed', 'blocked', 'qa_1', 'developer_1', ${T0 + 5_000}),
          (1, 'm', 'approve_reset', 'blocked', 'pending', 'lead', 'developer_1', ${T0 + 9_000})`,
      ],
    },
    {
      name: "several tasks moved and made blocked by one UPDATE",
      steps: [
        session("m", "observe"),
        ...taskAt("m", "A", "claimed"),
        ...taskAt("m", "B", "claimed"),
        "UPDATE tasks SET status = 'blocked', verification = 'none', reset_requested = TRUE WHERE session_id = 'm'",
      ],
    },
  ];
}

function completionGate(): Scenario[] {
  const COMPLETE = "UPDATE sessions SET status = 'completed' WHERE id = 's1'";
  const check = (accepted: boolean, s = "s1") =>
    `INSERT INTO completion_checks (session_id, accepted, reasons, met_count, total_count, actor) VALUES ('${s}', ${accepted ? "TRUE, '[]'" : "FALSE, '[\"Only 0/1 criteria met\"]'"}, 1, 1, 'orchestrator')`;
  const setUp = (enforcement: "enforce" | "observe" = "enforce") => [
    session("s1", enforcement),
    session("s2", enforcement),
    "INSERT INTO success_criteria (session_id, criterion, status) VALUES ('s1', 'tests pass', 'met')",
    ...taskAt("s1", "login", "completed"),
    "INSERT INTO goals (session_id, goal_text) VALUES ('s1', 'accuracy')",
  ];
  const evaluate = (verdict: string) =>
    `INSERT INTO goal_gate_evaluations (goal_id, attempt_number, trust_passed, goal_status, met_count, total_count, criteria_results, verdict, reason, actor)
       VALUES (1, 1, TRUE, 'MET', 1, 1, '[]', '${verdict}', 'r', 'verifier_1')`;
  const changes: [string, string][] = [
    ["a criterion's status", "UPDATE success_criteria SET status = 'failed' WHERE id = 1"],
    ["a criterion's evidence", "UPDATE success_criteria SET evidence = 'blocked by vendor outage' WHERE id = 1"],
    ["a verifier's finding", "UPDATE success_criteria SET verifier_status = 'failed' WHERE id = 1"],
    ["a criterion's required flag", "UPDATE success_criteria SET required_for_completion = FALSE WHERE id = 1"],
    ["a new criterion", "INSERT INTO success_criteria (session_id, criterion) VALUES ('s1', 'docs written')"],
    ["a new task", "INSERT INTO tasks (session_id, key, title) VALUES ('s1', 'signup', 'task signup')"],
    ["a task's title", updateTask("s1", "login", "title = 'login, again'")],
    ["a goal gate verdict", evaluate("SUCCESS")],
    ["a goal contract", "INSERT INTO goal_contracts (goal_id, goal_text) VALUES (1, 'accuracy')"],
  ];
  const required = "completion.check_required";
  const bookkeeping = "completion.bookkeeping";
  return [
    { name: "no completion without a check", steps: [...setUp(), [COMPLETE, required]] },
    {
      name: "no completion when the latest check rejected",
      steps: [
        ...setUp(),
        check(true),
        check(false),
        [COMPLETE, "completion.rejected"],
        ["UPDATE sessions SET status = 'completed', ended_at = 1 WHERE id = 's1'", "completion.rejected"],
      ],
    },
    { name: "completes after an accepted check, naming it", steps: [...setUp(), check(true), COMPLETE] },
    ...changes.map(([what, change]) => ({
      name: `no completion when ${what} changed after the accepted check`,
      steps: [...setUp(), check(true), change, [COMPLETE, required] as const, check(true), COMPLETE],
    })),
    {
      name: "no completion when a task moved after the check",
      steps: [...setUp(), ...taskAt("s1", "extra", "verified"), check(true), updateTask("s1", "extra", setStatus("completed")), [COMPLETE, required]],
    },
    {
      name: "still complete-able after writes the gate does not read",
      steps: [
        ...setUp(),
        check(true),
        updateTask("s1", "login", "status = status, description = 'more detail', assignee = 'developer_2'"),
        "UPDATE success_criteria SET status = status, created_by = 'pm' WHERE id = 1",
        "INSERT INTO goals (session_id, goal_text) VALUES ('s1', 'latency')",
        "INSERT INTO orchestration_logs (session_id, agent_type, content) VALUES ('s1', 'pm', 'BAZINGA')",
        "INSERT INTO tasks (session_id, key, title) VALUES ('s2', 'elsewhere', 't')",
        check(false, "s2"),
        COMPLETE,
      ],
    },
    {
      name: "a new check for each completion",
      steps: [...setUp(), check(true), COMPLETE, "UPDATE sessions SET status = 'active' WHERE id = 's1'", [COMPLETE, required], check(true), COMPLETE],
    },
    { name: "failing is not gated", steps: [...setUp(), "UPDATE sessions SET status = 'failed' WHERE id = 's1'"] },
    { name: "observe: no completion without a check", steps: [...setUp("observe"), [COMPLETE, required]] },
    { name: "observe: completes on a fresh rejected check", steps: [...setUp("observe"), check(false), COMPLETE] },
    {
      name: "observe: no completion on a stale check",
      steps: [...setUp("observe"), check(false), updateTask("s1", "login", "status = 'blocked', verification = 'none'"), [COMPLETE, required]],
    },
    {
      name: "the gate's bookkeeping",
      steps: [
        ...setUp(),
        check(true),
        updateTask("s1", "login", "title = 'renamed'"),
        ["UPDATE sessions SET checks_stale_through = 0 WHERE id = 's1'", bookkeeping],
        ["UPDATE sessions SET checks_stale_through = 0, status = 'completed' WHERE id = 's1'", bookkeeping],
        ["UPDATE sessions SET checks_stale_through = 99 WHERE id = 's1'", bookkeeping],
        ["UPDATE sessions SET completion_check_id = 1 WHERE id = 's1'", bookkeeping],
        check(true),
        COMPLETE,
        ["UPDATE sessions SET completion_check_id = 1 WHERE id = 's1'", bookkeeping],
        ["UPDATE sessions SET completion_check_id = NULL WHERE id = 's1'", bookkeeping],
      ],
    },
    { name: "a session is not inserted completed", steps: [["INSERT INTO sessions (id, status) VALUES ('s9', 'completed')", required]] },
    { name: "a session is not inserted naming a check", steps: [["INSERT INTO sessions (id, completion_check_id) VALUES ('s9', 1)", bookkeeping]] },
    // Two triggers refuse these: SQLite runs the later-created one first, PostgreSQL the first by name; both name the gate's rule.
    {
      name: "completing and rewriting the source: the gate is named",
      steps: [...setUp(), ["UPDATE sessions SET status = 'completed', source = 'demo' WHERE id = 's1'", required]],
    },
    {
      name: "rewinding the staleness mark and rewriting the source: the bookkeeping rule is named",
      steps: [
        ...setUp(),
        check(true),
        updateTask("s1", "login", "title = 'renamed'"),
        ["UPDATE sessions SET checks_stale_through = 0, source = 'demo' WHERE id = 's1'", bookkeeping],
      ],
    },
    {
      name: "completing on a fresh check and rewriting the models: the identity rule is named",
      steps: [...setUp(), check(true), ["UPDATE sessions SET status = 'completed', models = '{}' WHERE id = 's1'", "session.identity_immutable"]],
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Running a scenario on each engine.

const TABLES = Object.values(schema as Record<string, unknown>)
  .filter((value): value is SQLiteTable => is(value, SQLiteTable))
  .map((table) => getTableConfig(table).name)
  .sort();

/** ok, or the refusal's message when it names a rule (`rule.id: …`), or the error as it came. */
function outcomeOf(error: unknown): string {
  if (error === undefined) return "ok";
  const message = error instanceof Error ? error.message : String(error);
  return /^[a-z_]+(?:\.[a-z_]+)?: /.test(message) ? message : `error: ${message}`;
}

const STARTED = Date.now();
/** Values the engines set themselves (`nowMs` defaults, and what triggers copy from them) read as "<now>". */
function normalise(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" && value > STARTED - 40 * 86_400_000 && value < Date.now() + 86_400_000) return "<now>";
  return value;
}
function rowKey(row: Record<string, unknown>): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.keys(row)
        .sort()
        .map((k) => [k, normalise(row[k])]),
    ),
  );
}
type Tables = Record<string, string[]>;

/** A migrated SQLite database as bytes (`createMemoryDb()` migrates one in about 50 ms). */
let migratedSqlite: Buffer | undefined;
/** A fresh, migrated SQLite database of its own: a copy of the image, with the connection setting that changes outcomes (db/client.ts openDatabase). */
function freshSqlite(): Database.Database {
  if (!migratedSqlite) {
    const migrated = createMemoryDb().$client;
    migratedSqlite = migrated.serialize();
    migrated.close();
  }
  const sqlite = new Database(migratedSqlite);
  sqlite.pragma("foreign_keys = ON");
  return sqlite;
}

function runOnSqlite(steps: Step[]): { outcomes: string[]; tables: Tables } {
  const sqlite = freshSqlite();
  try {
    const outcomes = steps.map((step) => {
      try {
        sqlite.prepare(typeof step === "string" ? step : step[0]).run();
        return outcomeOf(undefined);
      } catch (error) {
        return outcomeOf(error);
      }
    });
    const tables = Object.fromEntries(TABLES.map((t) => [t, (sqlite.prepare(`SELECT * FROM "${t}"`).all() as Record<string, unknown>[]).map(rowKey).sort()]));
    return { outcomes, tables };
  } finally {
    sqlite.close();
  }
}

/**
 * The scenario on the PostgreSQL database, which is empty before and after: one transaction, rolled
 * back at the end, with each step under its own savepoint, so a refused step undoes only itself, as
 * it does on its own (the triggers read no transaction time: `nowMs` is `statement_timestamp()`).
 * The identity sequences, which a rollback does not rewind, restart first, so ids match SQLite's.
 * (TRUNCATE … RESTART IDENTITY between scenarios did the same at about 125 ms a scenario.)
 */
async function runOnPg(client: pg.Client, steps: Step[]): Promise<{ outcomes: string[]; tables: Tables }> {
  const { rows: sequences } = await client.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, sequencename) AS name FROM pg_sequences WHERE schemaname = 'public'`,
  );
  await client.query(
    `SELECT ${sequences.map((_, i) => `setval($${i + 1}::regclass, 1, false)`).join(", ")}`,
    sequences.map((s) => s.name),
  );
  await client.query("BEGIN");
  try {
    const outcomes: string[] = [];
    for (const step of steps) {
      await client.query("SAVEPOINT step");
      try {
        await client.query(typeof step === "string" ? step : step[0]);
        outcomes.push(outcomeOf(undefined));
      } catch (error) {
        await client.query("ROLLBACK TO SAVEPOINT step");
        outcomes.push(outcomeOf(error));
      }
      await client.query("RELEASE SAVEPOINT step");
    }
    const { rows } = await client.query<{ t: string; r: string }>(
      TABLES.map((t) => `SELECT '${t}' AS t, row_to_json(x)::text AS r FROM "${t}" x`).join(" UNION ALL "),
    );
    const tables: Tables = Object.fromEntries(TABLES.map((t) => [t, [] as string[]]));
    for (const { t, r } of rows) tables[t]!.push(rowKey(JSON.parse(r) as Record<string, unknown>));
    for (const t of TABLES) tables[t]!.sort();
    return { outcomes, tables };
  } finally {
    await client.query("ROLLBACK");
  }
}

/** What SQLite must do for the scenario to be what its source test says (so the engines are not equal by both doing nothing). */
function expectSqliteAsDocumented(steps: Step[], outcomes: string[]) {
  steps.forEach((step, i) => {
    if (typeof step === "string") expect(outcomes[i], `SQLite, step ${i + 1}: ${step}`).toBe("ok");
    else expect(outcomes[i]!.startsWith(step[1]), `SQLite, step ${i + 1}: ${step[0]} → ${outcomes[i]} (expected ${step[1]})`).toBe(true);
  });
}

const timeColumnOf = (() => {
  const sqlite = createMemoryDb().$client;
  const columns = Object.fromEntries(
    APPEND_ONLY_TABLES.map((table) => [
      table,
      (sqlite.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name).find((c) => c === "at" || c === "timestamp") ?? "id",
    ]),
  );
  sqlite.close();
  return (table: string) => columns[table]!;
})();

const GROUPS: [string, Scenario[]][] = [
  ["the task machine", taskMachine()],
  ["never the claimant", claimant()],
  ["creating tasks", creatingTasks()],
  ["criteria and goal contracts", criteriaAndContracts()],
  ["append-only history and the purge path", history(timeColumnOf)],
  ["rollup counters", [sessionRollups(), historyRollups()]],
  ["the completion gate", completionGate()],
  ["statements writing several rows", multiRow()],
];

const adminUrl = inject("pgAdminUrl");
const template = inject("pgTemplate");

describe.skipIf(!adminUrl)("the same statements on SQLite and PostgreSQL", () => {
  let client: pg.Client | undefined;

  beforeAll(async () => {
    if (!template) throw new Error("the pg project's globalSetup made no migrated template (db/migrations-pg/meta/_journal.json missing?)");
    // A copy of the template: db/migrations-pg applied by applyPgMigrations (the baseline's tables, then the triggers).
    client = new pg.Client({
      connectionString: await createTestDatabase(adminUrl!, undefined, { template }),
      // bigint (ids, epoch ms) and numeric as numbers, as db/pg/client.ts reads them.
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    await client.connect();
    await client.query("SET client_min_messages = warning");
  }, 120_000);

  afterAll(async () => {
    await client?.end().catch(() => undefined);
  });

  it("runs on a database migrated by every db/migrations-pg migration, the triggers included", async () => {
    const { rows } = await client!.query<{ n: number }>(`SELECT count(*) AS n FROM "drizzle"."__drizzle_migrations"`);
    expect(rows[0]!.n).toBe(JOURNAL.entries.length);
    const triggers = await client!.query<{ name: string }>(`SELECT tgname AS name FROM pg_trigger WHERE NOT tgisinternal`);
    const rendered = [...pgEnforcementSql().matchAll(/^CREATE OR REPLACE TRIGGER (\w+) /gm)].map((m) => m[1]);
    expect(triggers.rows.map((t) => t.name).sort()).toEqual(rendered.sort());
  });

  for (const [group, scenarios] of GROUPS) {
    describe(group, () => {
      it.each(scenarios.map((s) => [s.name, s] as const))("%s", async (_, scenario) => {
        const lite = runOnSqlite(scenario.steps);
        expectSqliteAsDocumented(scenario.steps, lite.outcomes);
        const postgres = await runOnPg(client!, scenario.steps);
        expect(postgres.outcomes, "outcomes").toEqual(lite.outcomes);
        expect(postgres.tables, "rows afterwards").toEqual(lite.tables);
      });
    });
  }

  it("the scenarios leave rows in the rollups and counters, so their equality is not between empty tables", async () => {
    const { tables } = await runOnPg(client!, historyRollups().steps.slice(0, -2));
    expect(tables.analytics_rollups!.length).toBeGreaterThan(20);
    expect(new Set(tables.analytics_rollups!.map((r) => (JSON.parse(r) as { figure: string }).figure))).toEqual(
      new Set([
        "claim",
        "judged",
        "judged_all",
        "spell",
        "spell_all",
        "reset",
        "reset_hist",
        "check",
        "attempt",
        "attempt_all",
        "goal_hist",
        "breakdown",
        "tokens",
      ]),
    );
  });
});
