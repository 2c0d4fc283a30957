/**
 * A BAZINGA parallel-mode run replayed through the compatible commands, in the order its
 * orchestrator, PM, developers, QA and tech lead make them, against an `observe` session — then
 * the same status report in an `enforce` session, which is refused with the move to use.
 */
import { sql } from "drizzle-orm";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { type CliResult, type Ledger, SPAWN, cli, closeReaders, ledgerCount, ledgerRows, ledgerWorkspace, removeWorkspaces } from "@/test/support/cli-harness";
import { describeSharedPath } from "@/test/support/engines";

// The replay makes about a hundred calls: in-process that is seconds, as child processes minutes.
vi.setConfig({ testTimeout: SPAWN ? 300_000 : 120_000 });
afterEach(closeReaders);
afterAll(removeWorkspaces);

const S = "bazinga_20250112_143022";
const GROUPS = [
  { id: "A", name: "JWT authentication", dev: "developer_1", complexity: "7", tier: "Senior Software Engineer" },
  { id: "B", name: "Password reset", dev: "developer_2", complexity: "4", tier: "Developer" },
  { id: "C", name: "Audit log", dev: "developer_3", complexity: "3", tier: "Developer" },
] as const;
const CRITERIA = ["All tests passing", "Coverage > 70%", "Build succeeds on CI"];
const PHASES = ["understanding", "approach", "decisions", "risks", "blockers", "pivot", "completion"] as const;

/** Run a call that must succeed; on failure the assertion shows the call and its stderr. */
async function ok(db: Ledger, ...args: string[]): Promise<CliResult> {
  const run = await cli([...args, ...db.flag]);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
  return run;
}

describeSharedPath("a BAZINGA run replayed through the command line", (engine) => {
  describe("a BAZINGA parallel-mode run in an observe session", () => {
    it("accepts every call and stores what the run reported, flagging the unverified completions", async () => {
      const db = await ledgerWorkspace(engine);
      const made = await ok(
        db,
        "create-session",
        S,
        "parallel",
        "Add JWT auth, password reset and an audit log",
        "--initial_branch",
        "main",
        "--enforcement",
        "observe",
      );
      expect(made.stdout).toBe(`✓ Created session ${S} (parallel, observe)\n`);
      await ok(db, "--quiet", "log-interaction", S, "orchestrator", "Starting parallel orchestration for 3 groups", "1", "orchestrator");
      await ok(db, "--quiet", "save-state", S, "orchestrator", '{"phase":"planning","mode":"parallel"}');

      // The PM plans: criteria, a plan, three task groups, its own state and tokens.
      await ok(db, "log-interaction", S, "project_manager", "Planning: 3 independent groups, parallel mode", "2", "project_manager_1");
      const criteria = CRITERIA.map((criterion) => ({ criterion, status: "pending", required_for_completion: true }));
      await ok(db, "save-success-criteria", S, JSON.stringify(criteria));
      await ok(
        db,
        "save-development-plan",
        S,
        "Add JWT auth, password reset and an audit log",
        "A: JWT; B: reset; C: audit",
        JSON.stringify(GROUPS.map((g, i) => ({ phase: i + 1, name: g.name }))),
        "1",
        "3",
      );
      for (const g of GROUPS) {
        await ok(
          db,
          "create-task-group",
          g.id,
          S,
          g.name,
          "pending",
          g.dev,
          "--complexity",
          g.complexity,
          "--initial_tier",
          g.tier,
          "--specializations",
          '["01-languages/typescript.md"]',
        );
      }
      await ok(
        db,
        "save-state",
        S,
        "pm",
        JSON.stringify({ mode: "parallel", iteration: 2, task_groups: GROUPS.map((g) => ({ id: g.id })), success_criteria: criteria }),
      );
      await ok(db, "log-tokens", S, "project_manager", "5200", "project_manager_1");

      // Developers work in parallel; group A's developer documents all seven reasoning phases.
      for (const g of GROUPS) {
        await ok(db, "update-task-group", g.id, S, "--status", "in_progress", "--assigned_to", g.dev);
        await ok(db, "log-interaction", S, "developer", `Implemented ${g.name}; tests pass`, "3", g.dev);
        const phases = g.id === "A" ? PHASES : (["understanding", "completion"] as const);
        for (const phase of phases)
          await ok(
            db,
            "save-reasoning",
            S,
            g.id,
            "developer",
            phase,
            `${phase} for ${g.name}`,
            "--confidence",
            "high",
            "--agent_id",
            g.dev,
            "--references",
            '["src/auth.ts"]',
          );
        await ok(db, "check-mandatory-phases", S, g.id, "developer");
        await ok(db, "log-tokens", S, "developer", "12000", g.dev);
        await ok(db, "save-skill-output", S, "lint_check", '{"ok":true,"findings":0}', "--agent", "developer", "--group", g.id);
      }
      await ok(
        db,
        "save-context-package",
        S,
        "A",
        "research",
        "bazinga/artifacts/ctx-1.md",
        "requirements_engineer",
        '["developer","qa_expert"]',
        "high",
        "OAuth2 provider notes",
      );
      const packages = JSON.parse((await ok(db, "get-context-packages", S, "A", "qa_expert")).stdout) as { id: number }[];
      expect(packages).toHaveLength(1);
      await ok(db, "mark-context-consumed", String(packages[0]!.id), "qa_expert", "1");

      // QA, then the tech lead approves and each group merges: in_progress → approved_pending_merge → merging → completed.
      for (const g of GROUPS) {
        await ok(db, "log-interaction", S, "qa_expert", `QA passed for ${g.id}`, "4", "qa_expert_1");
        await ok(db, "update-task-group", g.id, S, "--qa_attempts", "1");
        await ok(db, "log-interaction", S, "tech_lead", `APPROVED ${g.id}`, "5", "tech_lead_1");
        await ok(
          db,
          "update-task-group",
          g.id,
          S,
          "--status",
          "approved_pending_merge",
          "--last_review_status",
          "APPROVED",
          "--tl_review_attempts",
          "1",
          "--review_iteration",
          "1",
        );
        await ok(db, "update-task-group", g.id, S, "--status", "merging", "--merge_status", "in_progress");
        const done = await ok(db, "update-task-group", g.id, S, "--status", "completed", "--merge_status", "merged");
        expect(done.stdout).toContain("unverified");
        await ok(db, "save-state", S, "group_status", JSON.stringify({ status: "completed" }), "--group-id", g.id);
        await ok(db, "update-plan-progress", S, String(GROUPS.indexOf(g) + 1), "completed");
      }

      // The PM marks the criteria met and says BAZINGA; a retried save-event stores nothing new.
      for (const criterion of CRITERIA)
        await ok(db, "update-success-criterion", S, criterion, "--status", "met", "--actual", "done", "--evidence", `artifacts/${S}/evidence.txt`);
      await ok(db, "log-tokens", S, "project_manager", "3100", "project_manager_1");
      await ok(db, "save-event", S, "pm_bazinga", '{"summary":"All criteria met","iteration":6}', "--idempotency-key", "pm_bazinga_6");
      const again = await ok(db, "save-event", S, "pm_bazinga", '{"summary":"All criteria met","iteration":6}', "--idempotency-key", "pm_bazinga_6");
      expect(again.stdout).toContain("nothing new stored");

      // The completion gate rejects: the criteria are met, but no group was ever verified.
      const gate = await cli(["check-completion", S, ...db.flag]);
      expect(gate.code).toBe(1);
      expect(gate.stdout).toContain("REJECTED (3/3 required criteria met)");
      expect(gate.stdout).toContain("3 tasks were completed without verification: A, B, C");
      await ok(db, "save-event", S, "validator_verdict", '{"verdict":"ACCEPT","reason":"checked"}');
      const closed = await ok(db, "update-session-status", S, "completed");
      expect(closed.stdout).toContain(`Session ${S} is completed (completion gate rejected it`);

      // What the reads report…
      const snapshot = JSON.parse((await ok(db, "dashboard-snapshot", S)).stdout) as Record<string, unknown>;
      expect(snapshot).toMatchObject({
        session: { session_id: S, status: "completed", enforcement: "observe", mode: "parallel", initial_branch: "main" },
        token_summary: { project_manager: 8300, developer: 36000, total: 44300 },
        latest_completion_check: { accepted: false, met_count: 3, total_count: 3 },
      });
      const groups = snapshot.task_groups as Record<string, unknown>[];
      expect(groups.map((g) => [g.id, g.status, g.source_status, g.verification, g.merge_status, g.last_review_status])).toEqual(
        GROUPS.map((g) => [g.id, "completed", "completed", "none", "merged", "APPROVED"]),
      );
      expect((snapshot.success_criteria as Record<string, unknown>[]).map((c) => [c.criterion, c.status])).toEqual(CRITERIA.map((c) => [c, "met"]));
      expect(JSON.parse((await ok(db, "get-state", S, "group_status", "--group_id", "B")).stdout)).toEqual({ status: "completed" });
      expect(JSON.parse((await ok(db, "get-skill-output", S, "lint_check", "--agent", "developer")).stdout)).toEqual({ ok: true, findings: 0 });
      expect(JSON.parse((await ok(db, "get-reasoning", S, "--group_id", "A", "--agent_type", "developer")).stdout)).toHaveLength(7);
      expect((await ok(db, "reasoning-timeline", S, "--group_id", "A", "--format", "markdown")).stdout).toMatch(
        /^# Reasoning Timeline\n\n## Group: A\n\n### \[.+\] developer \(developer_1\) - understanding \[high\]/,
      );
      const events = JSON.parse((await ok(db, "get-events", S, "pm_bazinga")).stdout) as Record<string, unknown>[];
      expect(events).toMatchObject([
        { event_subtype: "pm_bazinga", event_payload: { summary: "All criteria met", iteration: 6 }, idempotency_key: "pm_bazinga_6" },
      ]);

      // …is what is stored.
      expect(
        await ledgerRows(
          db,
          "SELECT key, status, source_status, verification, assignee, complexity, tier, qa_attempts, tl_review_attempts FROM tasks ORDER BY key",
        ),
      ).toEqual(
        GROUPS.map((g) => ({
          key: g.id,
          status: "completed",
          source_status: "completed",
          verification: "none",
          assignee: g.dev,
          complexity: Number(g.complexity),
          tier: g.tier,
          qa_attempts: 1,
          tl_review_attempts: 1,
        })),
      );
      expect(await ledgerCount(db, "SELECT * FROM task_transitions WHERE move = 'verify'")).toBe(0);
      const unverified = (await ledgerRows<{ data: string }>(db, "SELECT data FROM events WHERE type = 'unverified_completion' ORDER BY id")).map(
        (e) => JSON.parse(e.data) as { key: string; to: string },
      );
      // One per task, at its completion (the `verified` it was reported on the way is flagged on the row, not counted twice).
      expect(unverified.map((e) => `${e.key}:${e.to}`).sort()).toEqual(["A:completed", "B:completed", "C:completed"]);
      // (filtered here, not with SQL: JSON functions are spelled differently on each engine)
      const reported = (await ledgerRows<{ data: string }>(db, "SELECT data FROM events WHERE type = 'task.reported'")).map(
        (e) => JSON.parse(e.data) as { to: string; verification: string },
      );
      expect(reported.filter((e) => e.to === "verified" && e.verification === "none")).toHaveLength(3);
      expect(
        await ledgerRows(
          db,
          "SELECT criterion, status, actual, evidence, CAST(required_for_completion AS integer) AS required FROM success_criteria ORDER BY id",
        ),
      ).toEqual(CRITERIA.map((criterion) => ({ criterion, status: "met", actual: "done", evidence: `artifacts/${S}/evidence.txt`, required: 1 })));
      expect(await ledgerRows(db, "SELECT log_type, count(*) AS n FROM orchestration_logs GROUP BY log_type ORDER BY log_type")).toEqual([
        { log_type: "event", n: 2 },
        { log_type: "interaction", n: 2 + GROUPS.length * 3 },
        { log_type: "reasoning", n: 7 + 2 + 2 },
      ]);
      expect(await ledgerRows(db, "SELECT count(*) AS n, sum(tokens_estimated) AS total FROM token_usage")).toEqual([{ n: 5, total: 44300 }]);
      expect(await ledgerRows(db, "SELECT state_type, count(*) AS n FROM state_snapshots GROUP BY state_type ORDER BY state_type")).toEqual([
        { state_type: "group_status", n: 3 },
        { state_type: "orchestrator", n: 1 },
        { state_type: "pm", n: 1 },
      ]);
      expect(await ledgerRows(db, "SELECT CAST(accepted AS integer) AS accepted, source FROM completion_checks ORDER BY id")).toEqual([
        { accepted: 0, source: "gate" },
        { accepted: 0, source: "gate" },
      ]);
      expect(await ledgerRows(db, "SELECT status, enforcement, tasks_completed, tasks_unverified FROM sessions")).toEqual([
        { status: "completed", enforcement: "observe", tasks_completed: 3, tasks_unverified: 3 },
      ]);
      expect(await ledgerCount(db, "SELECT * FROM context_package_consumers WHERE consumed_at IS NOT NULL")).toBe(1);
      expect(JSON.parse((await ledgerRows<{ phases: string }>(db, "SELECT phases FROM development_plans"))[0]!.phases)).toMatchObject(
        GROUPS.map(() => ({ status: "completed" })),
      );
      // Every write left its event, the session's own included.
      expect(await ledgerCount(db, sql`SELECT * FROM events WHERE session_id = ${S}`)).toBeGreaterThan(60);
    });

    it("creates observe sessions when PROOFGATE_ENFORCEMENT=observe and no flag says otherwise", async () => {
      const db = await ledgerWorkspace(engine);
      await cli(["create-session", "s_env", "simple", "req", ...db.flag], { env: { PROOFGATE_ENFORCEMENT: "observe" } });
      await cli(["create-session", "s_flag", "simple", "req", "--enforcement", "enforce", ...db.flag], { env: { PROOFGATE_ENFORCEMENT: "observe" } });
      await cli(["create-session", "s_default", "simple", "req", ...db.flag], { env: { PROOFGATE_ENFORCEMENT: undefined } });
      expect(await ledgerRows(db, "SELECT id, enforcement FROM sessions ORDER BY id")).toEqual([
        { id: "s_default", enforcement: "enforce" },
        { id: "s_env", enforcement: "observe" },
        { id: "s_flag", enforcement: "enforce" },
      ]);
    });
  });

  describe("the same status reports in an enforce session", () => {
    it("are refused with exit 1, naming the move to use, and change nothing", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(db, "create-session", S, "parallel", "Add JWT auth");
      await ok(db, "create-task-group", "A", S, "JWT authentication", "pending", "developer_1");
      // pending → in_progress is the start move: allowed as a report.
      await ok(db, "update-task-group", "A", S, "--status", "in_progress");

      const approved = await cli(["update-task-group", "A", S, "--status", "approved_pending_merge", ...db.flag]);
      expect(approved.code).toBe(1);
      expect(approved.stderr).toContain("cannot set status in_progress → verified directly");
      expect(approved.stderr).toContain("from in_progress: claim");
      const completed = await cli(["update-task-group", "A", S, "--status", "completed", ...db.flag]);
      expect(completed.code).toBe(1);
      expect(completed.stderr).toContain("in_progress → completed is not a move");

      await ok(db, "claim", S, "A", "--evidence", "artifacts/tests.txt", "--agent-id", "developer_1");
      const skipVerify = await cli(["--json", "update-task-group", "A", S, "--status", "approved_pending_merge", ...db.flag]);
      expect(skipVerify.code).toBe(1);
      expect(JSON.parse(skipVerify.stderr)).toEqual({
        error: { rule: "task.status_claimed_to_verified", message: expect.stringContaining('use the "verify" move') },
      });

      const created = await cli(["create-task-group", "B", S, "Password reset", "completed", ...db.flag]);
      expect(created.code).toBe(1);
      expect(created.stderr).toContain("pending → completed");

      expect(await ledgerRows(db, "SELECT key, status, verification FROM tasks ORDER BY key")).toEqual([
        { key: "A", status: "claimed", verification: null },
        { key: "B", status: "pending", verification: null },
      ]);
      expect(await ledgerCount(db, "SELECT * FROM events WHERE type = 'unverified_completion'")).toBe(0);
    });
  });
});
