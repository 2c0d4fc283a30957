/**
 * The source documents' own test plans as command-line calls in local mode: 000's Tests 1, 3, 4, 5
 * and 6 (success criteria and the completion gate) and 004's two task lifecycles.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { closeLedger, openLedger } from "@/db/client";
import { rawRun } from "@/db/query";
import { type CliResult, type Ledger, cli, closeReaders, ledgerCount, ledgerRows, ledgerWorkspace, removeWorkspaces } from "@/test/support/cli-harness";
import { describeSharedPath } from "@/test/support/engines";

vi.setConfig({ testTimeout: 60_000 });
afterEach(closeReaders);
afterAll(removeWorkspaces);

async function ok(db: Ledger, ...args: string[]): Promise<CliResult> {
  const run = await cli([...args, ...db.flag]);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

async function refused(db: Ledger, code: number, ...args: string[]): Promise<CliResult> {
  const run = await cli([...args, ...db.flag]);
  expect({ args, code: run.code }).toEqual({ args, code });
  return run;
}

const criteriaOf = async (db: Ledger, session: string) => JSON.parse((await ok(db, "get-success-criteria", session)).stdout) as Record<string, unknown>[];

describeSharedPath("the source documents' test plans through the command line", (engine) => {
  describe("000: success criteria and the BAZINGA check", () => {
    it("Test 1 — new session, happy path: criteria saved pending, updated with evidence, completion accepted", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(db, "create-session", "s1", "simple", "Fix all bugs");
      await ok(
        db,
        "save-success-criteria",
        "s1",
        '[{"criterion":"All bugs fixed"},{"criterion":"All tests passing"},{"criterion":"No regressions","required_for_completion":true}]',
      );
      expect((await criteriaOf(db, "s1")).map((c) => [c.criterion, c.status, c.required_for_completion])).toEqual([
        ["All bugs fixed", "pending", true],
        ["All tests passing", "pending", true],
        ["No regressions", "pending", true],
      ]);
      // The work itself, through the task machine: claimed by one agent, verified by another.
      await ok(db, "create-task-group", "fix", "s1", "Fix the bugs", "in_progress", "developer_1");
      await ok(db, "claim", "s1", "fix", "--evidence", "artifacts/s1/tests.txt", "--agent-id", "developer_1");
      await ok(db, "verify", "s1", "fix", "--check", "tests=pass", "--agent-id", "qa_expert_1");
      await ok(db, "complete", "s1", "fix", "--agent-id", "orchestrator");
      for (const criterion of ["All bugs fixed", "All tests passing", "No regressions"]) {
        await ok(
          db,
          "update-success-criterion",
          "s1",
          criterion,
          "--status",
          "met",
          "--actual",
          "711/711 tests passing",
          "--evidence",
          "artifacts/s1/test-results.txt",
        );
      }
      expect(
        (await criteriaOf(db, "s1")).every((c) => c.status === "met" && c.actual === "711/711 tests passing" && c.evidence === "artifacts/s1/test-results.txt"),
      ).toBe(true);
      const gate = await ok(db, "check-completion", "s1");
      expect(gate.stdout).toBe("Completion check #1 for s1: ACCEPTED (3/3 required criteria met)\n");
      await ok(db, "update-session-status", "s1", "completed");
      expect(await ledgerRows(db, "SELECT status FROM sessions")).toEqual([{ status: "completed" }]);
    });

    it("Test 3 — concurrent updates of two criteria both succeed", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(db, "create-session", "s3", "parallel", "Three criteria");
      await ok(db, "save-success-criteria", "s3", '["A","B","C"]');
      const [a, b] = await Promise.all([
        cli(["update-success-criterion", "s3", "A", "--status", "met", "--agent-id", "pm_1", ...db.flag]),
        cli(["update-success-criterion", "s3", "B", "--status", "met", "--agent-id", "pm_2", ...db.flag]),
      ]);
      expect([a.code, b.code]).toEqual([0, 0]);
      expect((await criteriaOf(db, "s3")).map((c) => [c.criterion, c.status])).toEqual([
        ["A", "met"],
        ["B", "met"],
        ["C", "pending"],
      ]);
      expect(await ledgerRows(db, "SELECT actor, to_status FROM criterion_updates WHERE kind = 'claim' ORDER BY actor")).toEqual([
        { actor: "pm_1", to_status: "met" },
        { actor: "pm_2", to_status: "met" },
      ]);
    });

    it("Test 4 — saving the same criteria again leaves one row each (UPSERT)", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(db, "create-session", "s4", "simple", "Duplicates");
      const list = '[{"criterion":"All tests passing","status":"pending"},{"criterion":"Coverage >70%","status":"pending"}]';
      await ok(db, "save-success-criteria", "s4", list);
      const second = await ok(db, "save-success-criteria", "s4", list);
      expect(second.stdout).toBe("✓ Saved 2 success criteria for session s4\n");
      expect(await criteriaOf(db, "s4")).toHaveLength(2);
      expect(await ledgerCount(db, "SELECT * FROM success_criteria WHERE session_id = 's4'")).toBe(2);
    });

    it("Test 5 — a criterion's text cannot change; a new criterion supersedes it", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(db, "create-session", "s5", "simple", "Immutability");
      await ok(db, "save-success-criteria", "s5", '[{"criterion":"50 tests passing"}]');
      // No command edits the text, and `query` runs only reads.
      const edit = await refused(db, 2, "query", "UPDATE success_criteria SET criterion = 'ALL tests passing'");
      expect(edit.stderr).toContain("sql: only a single read-only SELECT is allowed");
      // Nor does raw SQL behind the command line's back: the trigger refuses it.
      const raw = await openLedger(db.target, { migrate: false, poolSize: 1 });
      try {
        await expect(rawRun(raw, sql`UPDATE success_criteria SET criterion = 'ALL tests passing'`)).rejects.toThrow(/criter/i);
      } finally {
        await closeLedger(raw);
      }
      await ok(db, "save-success-criteria", "s5", '[{"criterion":"ALL tests passing","supersedes":"50 tests passing"}]');
      expect(await ledgerRows(db, "SELECT id, criterion, supersedes_id, created_at FROM success_criteria ORDER BY id")).toEqual([
        { id: 1, criterion: "50 tests passing", supersedes_id: null, created_at: expect.any(Number) },
        { id: 2, criterion: "ALL tests passing", supersedes_id: 1, created_at: expect.any(Number) },
      ]);
    });

    it("Test 6 — BAZINGA with 2 of 3 criteria met is rejected, and an enforce session stays active", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(db, "create-session", "s6", "simple", "Reject");
      await ok(db, "save-success-criteria", "s6", '["A","B","C"]');
      await ok(db, "update-success-criterion", "s6", "A", "--status", "met");
      await ok(db, "update-success-criterion", "s6", "B", "--status", "met");
      const gate = await refused(db, 1, "check-completion", "s6", "--claimed-verdict", "BAZINGA");
      expect(gate.stdout).toContain("REJECTED (2/3 required criteria met)");
      expect(gate.stdout).toContain("  - Only 2/3 criteria met\n");
      expect(gate.stdout).toContain('  - Criterion "C" is not met: pending');
      expect(gate.stderr).toContain("the completion gate rejected it");
      const json = await refused(db, 1, "--json", "check-completion", "s6");
      expect(JSON.parse(json.stdout)).toMatchObject({
        accepted: false,
        metCount: 2,
        totalCount: 3,
        reasons: expect.arrayContaining(["Only 2/3 criteria met"]),
      });
      const close = await refused(db, 1, "update-session-status", "s6", "completed");
      expect(close.stderr).toContain("Only 2/3 criteria met");
      expect(await ledgerRows(db, "SELECT status FROM sessions")).toEqual([{ status: "active" }]);
      expect(await ledgerRows(db, "SELECT CAST(accepted AS integer) AS accepted, claimed_verdict FROM completion_checks ORDER BY id")).toEqual([
        { accepted: 0, claimed_verdict: "BAZINGA" },
        { accepted: 0, claimed_verdict: null },
        { accepted: 0, claimed_verdict: null },
      ]);
    });
  });

  describe("004: the two-phase-commit task lifecycles", () => {
    it("login screen: pending → in_progress → claimed → verified → completed, the claimant never verifying", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(db, "create-session", "ios", "simple", "iOS app");
      await ok(db, "create-task-group", "login", "ios", "Implement login screen", "pending", "swiftui-developer");
      await ok(db, "start", "ios", "login", "--agent-id", "workflow-orchestrator");
      const early = await refused(db, 1, "complete", "ios", "login", "--agent-id", "workflow-orchestrator");
      expect(early.stderr).toContain("cannot complete a in_progress task");
      await ok(db, "claim", "ios", "login", "--evidence", '["screenshots/login.png","test-output.txt"]', "--agent-id", "swiftui-developer");
      const own = await refused(db, 1, "verify", "ios", "login", "--check", "build=pass", "--agent-id", "swiftui-developer");
      expect(own.stderr).toContain("swiftui-developer claimed this task and cannot verify it");
      const skip = await refused(db, 1, "complete", "ios", "login", "--agent-id", "workflow-orchestrator");
      expect(skip.stderr).toContain("cannot complete a claimed task");
      const verified = await ok(
        db,
        "--json",
        "verify",
        "ios",
        "login",
        "--check",
        "build=pass",
        "--check",
        "browser_screenshot=pass",
        "--agent-id",
        "verification-agent",
      );
      expect(JSON.parse(verified.stdout)).toMatchObject({
        status: "verified",
        verifiedBy: "verification-agent",
        claimedBy: "swiftui-developer",
        proofpack: {
          verdict: "PASSED",
          checks: [
            { name: "build", passed: true },
            { name: "browser_screenshot", passed: true },
          ],
        },
      });
      await ok(db, "complete", "ios", "login", "--agent-id", "workflow-orchestrator");
      expect(await ledgerRows(db, "SELECT status, verification, claimed_by, verified_by, completed_by, evidence FROM tasks")).toEqual([
        {
          status: "completed",
          verification: "verified",
          claimed_by: "swiftui-developer",
          verified_by: "verification-agent",
          completed_by: "workflow-orchestrator",
          evidence: '["screenshots/login.png","test-output.txt"]',
        },
      ]);
      expect(await ledgerRows(db, "SELECT move, from_status, to_status, actor FROM task_transitions ORDER BY id")).toEqual([
        { move: "create", from_status: null, to_status: "pending", actor: "operator" },
        { move: "start", from_status: "pending", to_status: "in_progress", actor: "workflow-orchestrator" },
        { move: "claim", from_status: "in_progress", to_status: "claimed", actor: "swiftui-developer" },
        { move: "verify", from_status: "claimed", to_status: "verified", actor: "verification-agent" },
        { move: "complete", from_status: "verified", to_status: "completed", actor: "workflow-orchestrator" },
      ]);
    });

    it("dashboard UI: blocked with failures, reset approved, re-done — the failed attempt kept", async () => {
      const db = await ledgerWorkspace(engine);
      const { dir } = db;
      await ok(db, "create-session", "web", "simple", "Dashboard");
      await ok(db, "create-task-group", "dash", "web", "Implement dashboard UI");
      await ok(db, "claim", "web", "dash", "--evidence", "screenshots/dashboard.png", "--agent-id", "react-18-specialist");
      const failures = ["browser_screenshot - Screenshot missing", "component_tests - 3 tests failing", "visual_review - /visual-review not run"];
      fs.writeFileSync(path.join(dir, "failures.json"), JSON.stringify(failures));
      const proofpack = {
        verdict: "BLOCKED",
        checks: [{ name: "component_tests", passed: false, detail: "3 failing" }],
        path: ".orchestration/proofpacks/dashboard-ui.json",
      };
      fs.writeFileSync(path.join(dir, "proofpack.json"), JSON.stringify(proofpack));
      await ok(
        db,
        "block",
        "web",
        "dash",
        "--failures",
        `@${path.join(dir, "failures.json")}`,
        "--proofpack",
        `@${path.join(dir, "proofpack.json")}`,
        "--agent-id",
        "verification-agent",
      );
      expect(await ledgerRows(db, "SELECT status, failures, blocked_by FROM tasks")).toEqual([
        { status: "blocked", failures: JSON.stringify(failures), blocked_by: "verification-agent" },
      ]);
      await refused(db, 1, "complete", "web", "dash", "--agent-id", "workflow-orchestrator");
      await refused(db, 1, "verify", "web", "dash", "--check", "x=pass", "--agent-id", "verification-agent");
      await ok(db, "request-reset", "web", "dash", "--reason", "fixed the three failures", "--agent-id", "workflow-orchestrator");
      await ok(db, "approve-reset", "web", "dash", "--reason", "retry with the fixes", "--agent-id", "lead@example.com");
      expect(await ledgerRows(db, "SELECT status, reset_count, claimed_by, failures FROM tasks")).toEqual([
        { status: "pending", reset_count: 1, claimed_by: null, failures: null },
      ]);
      await ok(db, "claim", "web", "dash", "--evidence", "screenshots/dashboard-v2.png", "--agent-id", "react-18-specialist");
      await ok(
        db,
        "verify",
        "web",
        "dash",
        "--proofpack",
        '{"verdict":"PASSED","checks":[{"name":"component_tests","passed":true}]}',
        "--agent-id",
        "verification-agent",
      );
      await ok(db, "complete", "web", "dash", "--agent-id", "workflow-orchestrator");
      expect(await ledgerRows(db, "SELECT status, verification, reset_count FROM tasks")).toEqual([
        { status: "completed", verification: "verified", reset_count: 1 },
      ]);
      const history = JSON.parse((await ok(db, "--json", "get-task-groups", "web")).stdout) as Record<string, unknown>[];
      expect(history).toMatchObject([{ id: "dash", status: "completed", verification: "verified", reset_count: 1 }]);
      expect(await ledgerRows(db, "SELECT move, claimant, failures, proofpack FROM task_transitions WHERE move = 'block'")).toEqual([
        { move: "block", claimant: "react-18-specialist", failures: JSON.stringify(failures), proofpack: JSON.stringify(proofpack) },
      ]);
      expect((await ledgerRows<{ move: string }>(db, "SELECT move FROM task_transitions ORDER BY id")).map((t) => t.move)).toEqual([
        "create",
        "claim",
        "block",
        "request_reset",
        "approve_reset",
        "claim",
        "verify",
        "complete",
      ]);
    });
  });
});
