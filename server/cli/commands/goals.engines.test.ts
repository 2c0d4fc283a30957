/**
 * Goals and attempts through the command line in local mode: 002's Scenarios A–D (contract →
 * attempt → result with evidence → a verifier's trust score → the two gates), the attempt limit,
 * 003's shots-on-goal flow (breakdown into sub-goals, git state, tool calls, validation runs), and
 * the commands' contract with scripts (exit 2 naming the argument, 3 for unknown ids, 1 for a
 * refused rule).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type CliResult,
  type Ledger,
  SPAWN,
  cli,
  closeReaders,
  ledgerCount,
  ledgerRows,
  ledgerUntouched,
  ledgerWorkspace,
  removeWorkspaces,
} from "@/test/support/cli-harness";
import { describeSharedPath } from "@/test/support/engines";

vi.setConfig({ testTimeout: SPAWN ? 300_000 : 60_000 });
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

/** Run with --json and return the parsed result. */
async function okJson<T = Record<string, unknown>>(db: Ledger, ...args: string[]): Promise<T> {
  return JSON.parse((await ok(db, "--json", ...args)).stdout) as T;
}

/** A file in the workspace holding `text`, as `@path` (or the bare path with `at` false). */
function file(dir: string, name: string, text: string, at = true): string {
  const target = path.join(dir, name);
  fs.writeFileSync(target, text);
  return at ? `@${target}` : target;
}

/** A session with one root goal; returns its id. */
async function sessionWithGoal(db: Ledger, session = "s", goalText = "Build a churn model"): Promise<number> {
  await ok(db, "create-session", session, "simple", goalText);
  return (await okJson<{ id: number }>(db, "create-goal", session, goalText, "--agent-id", "orchestrator")).id;
}

interface AttemptRun {
  evidence?: string[];
  status?: string;
  model?: string;
}

/** developer_1 starts and finishes an attempt at `goal` with `evidence` flags; returns the attempt id. */
async function attempt(db: Ledger, goal: number, run: AttemptRun = {}): Promise<number> {
  const started = await okJson<{ attempt: { id: number } }>(db, "start-attempt", String(goal), "--model", run.model ?? "model-a", "--agent-id", "developer_1");
  const id = started.attempt.id;
  await ok(db, "finish-attempt", String(id), run.status ?? "completed", ...(run.evidence ?? []), "--agent-id", "developer_1");
  return id;
}

/** verifier_1 scores the attempt, then evaluates the goal gate. */
async function judge(db: Ledger, goal: number, attemptId: number, score: number): Promise<CliResult> {
  await ok(db, "record-trust-score", String(attemptId), String(score), "--agent-id", "verifier_1");
  return cli(["evaluate-goal", String(goal), String(attemptId), "--agent-id", "verifier_1", ...db.flag]);
}

describeSharedPath("goals and attempts through the command line", (engine) => {
  describe("002's test scenarios through the command line", () => {
    it("A — goal met, trust high: SUCCESS, exit 0 (002's snake_case contract from a file, the metric parsed from the output)", async () => {
      const db = await ledgerWorkspace(engine);
      const { dir } = db;
      const goal = await sessionWithGoal(db);
      const contract = {
        goal_contract: {
          goal_text: "Build model with >= 80% accuracy",
          acceptance_criteria: [{ id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.8 }],
        },
      };
      const set = await ok(db, "set-goal-contract", String(goal), file(dir, "contract.json", JSON.stringify(contract)), "--agent-id", "orchestrator");
      expect(set.stdout).toBe(`✓ Goal ${goal}'s contract: 1 acceptance criterion, at most 3 attempts\n`);
      const output = file(dir, "run.log", "training…\n[METRIC:cv_accuracy_mean] 0.85 (std 0.02)\ndone\n", false);
      const started = await ok(db, "start-attempt", String(goal), "--model", "gradient-boosting", "--agent-id", "developer_1");
      expect(started.stdout).toBe("✓ Started implementation attempt 1 on goal 1 (gradient-boosting)\n");
      const finished = await ok(db, "finish-attempt", "1", "completed", "--output-file", output, "--agent-id", "developer_1");
      expect(finished.stdout).toBe(
        "✓ Attempt 1 finished: completed — evidence: 0 metrics, 0 markers, 0 artifacts, 0 verified findings, 1 marker line in the output\n",
      );
      const run = await judge(db, goal, 1, 90);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      expect(run.stdout).toContain(`Goal ${goal}, attempt 1 of 3 (attempt #1): SUCCESS`);
      expect(run.stdout).toContain("Trust gate: PASSED (score 90, needs 80)");
      expect(run.stdout).toContain("Goal gate: MET — Goal criteria met: 1/1 criteria passed");
      expect(run.stdout).toMatch(/AC1 {2}MET {6}cv_accuracy_mean: actual 0\.85, target >= 0\.8/);
      expect(await ledgerRows(db, "SELECT verdict, goal_status, trust_score, met_count, total_count, actor FROM goal_gate_evaluations")).toEqual([
        { verdict: "SUCCESS", goal_status: "MET", trust_score: 90, met_count: 1, total_count: 1, actor: "verifier_1" },
      ]);
      expect(await ledgerRows(db, "SELECT goal_text, max_goal_attempts FROM goal_contracts")).toEqual([
        { goal_text: "Build model with >= 80% accuracy", max_goal_attempts: 3 },
      ]);
    });

    it("B — goal not met with perfect evidence, trust high: PARTIAL, exit 1, 'Goal criteria not met: 0/1 criteria passed', pivot advice", async () => {
      const db = await ledgerWorkspace(engine);
      const goal = await sessionWithGoal(db);
      await ok(
        db,
        "set-goal-contract",
        String(goal),
        JSON.stringify({
          goalText: "Build model with >= 90% accuracy",
          acceptanceCriteria: [{ id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.9 }],
        }),
      );
      const id = await attempt(db, goal, { status: "success", evidence: ["--metrics", '{"cv_accuracy_mean":0.75}'] });
      const run = await judge(db, goal, id, 85);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("attempt 1 of 3 (attempt #1): PARTIAL");
      expect(run.stdout).toContain("Goal gate: NOT_MET — Goal criteria not met: 0/1 criteria passed");
      expect(run.stdout).toMatch(/AC1 {2}NOT_MET {2}cv_accuracy_mean: actual 0\.75, target >= 0\.9/);
      expect(run.stdout).toContain("Pivot: try another approach (2 attempts left)");
      expect(run.stdout).toContain("  - cv_accuracy_mean is 0.75, needs >= 0.9");
      expect(run.stderr).toBe(`proofgate: goal ${goal} is PARTIAL after attempt 1 of 3: Goal criteria not met: 0/1 criteria passed\n`);
      const json = await refused(db, 1, "--json", "evaluate-goal", String(goal), String(id), "--agent-id", "verifier_1");
      expect(JSON.parse(json.stdout)).toMatchObject({
        verdict: "PARTIAL",
        attemptNumber: 1,
        summary: "Goal criteria not met: 0/1 criteria passed",
        pivot: { shouldPivot: true, attemptsLeft: 2 },
      });
      expect(JSON.parse(json.stderr)).toEqual({
        error: { rule: "goal_gate.partial", message: expect.stringContaining("Goal criteria not met: 0/1 criteria passed") },
      });
    });

    it("C — no goal contract: the goal gate is skipped; SUCCESS needs a trust score of at least 80", async () => {
      const db = await ledgerWorkspace(engine);
      const goal = await sessionWithGoal(db);
      const low = await judge(db, goal, await attempt(db, goal), 79);
      expect(low.code).toBe(1);
      expect(low.stdout).toContain("attempt 1 (attempt #1): PARTIAL");
      expect(low.stdout).toContain("Trust gate: FAILED (score 79, needs 80)");
      expect(low.stderr).toContain("No goal contract: goal gate skipped; trust score 79 is below 80");
      const high = await judge(db, goal, await attempt(db, goal), 82);
      expect({ code: high.code, stderr: high.stderr }).toEqual({ code: 0, stderr: "" });
      expect(high.stdout).toContain("attempt 2 (attempt #2): SUCCESS");
      expect(high.stdout).toContain("Goal gate: NO_CONTRACT — No goal contract: goal gate skipped");
      // Exactly at the threshold passes too.
      const other = (await okJson<{ id: number }>(db, "create-goal", "s", "Another goal")).id;
      expect((await judge(db, other, await attempt(db, other), 80)).code).toBe(0);
      expect(await ledgerRows(db, "SELECT goal_id, verdict, goal_status, contract_id FROM goal_gate_evaluations ORDER BY id")).toEqual([
        { goal_id: goal, verdict: "PARTIAL", goal_status: "NO_CONTRACT", contract_id: null },
        { goal_id: goal, verdict: "SUCCESS", goal_status: "NO_CONTRACT", contract_id: null },
        { goal_id: other, verdict: "SUCCESS", goal_status: "NO_CONTRACT", contract_id: null },
      ]);
    });

    it("D — three criteria, two met: PARTIAL, exit 1, 'Goal criteria not met: 2/3 criteria passed', each criterion with actual vs target", async () => {
      const db = await ledgerWorkspace(engine);
      const { dir } = db;
      const goal = await sessionWithGoal(db, "churn", "Analyze customer churn with statistical evidence");
      const contract = {
        goal_text: "Analyze customer churn with statistical evidence",
        acceptance_criteria: [
          { id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.75 },
          { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_accuracy" },
          { id: "AC3", kind: "finding_count", minCount: 2 },
        ],
      };
      await ok(db, "set-goal-contract", String(goal), file(dir, "contract.json", JSON.stringify(contract)));
      const output = file(
        dir,
        "run.log",
        "[METRIC:baseline_accuracy] 0.61\n[METRIC:cv_accuracy_mean] 0.78\n[FINDING] churn rises with support tickets\n",
        false,
      );
      const id = await attempt(db, goal, { evidence: ["--output-file", output, "--findings", "1", "--artifacts", "models/churn.pkl,reports/churn.md"] });
      const run = await judge(db, goal, id, 88);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`proofgate: goal ${goal} is PARTIAL after attempt 1 of 3: Goal criteria not met: 2/3 criteria passed\n`);
      const lines = run.stdout.split("\n");
      expect(lines.slice(0, 7)).toEqual([
        `Goal ${goal}, attempt 1 of 3 (attempt #${id}): PARTIAL`,
        "  reason: evidence is trusted but goal criteria are not met: pivot to another approach — Goal criteria not met: 2/3 criteria passed; trust score 88 (needs 80)",
        "Trust gate: PASSED (score 88, needs 80)",
        "Goal gate: NOT_MET — Goal criteria not met: 2/3 criteria passed",
        "  AC1  MET      cv_accuracy_mean: actual 0.78, target >= 0.75",
        "  AC2  MET      METRIC:baseline_accuracy: actual METRIC:baseline_accuracy, target [METRIC:baseline_accuracy]",
        "  AC3  NOT_MET  verified findings: actual 1, target >= 2 verified findings",
      ]);
      expect(run.stdout).toContain("Pivot: try another approach (2 attempts left)");
      expect(await ledgerRows(db, "SELECT verified_findings, artifacts, metrics FROM attempt_results")).toEqual([
        { verified_findings: 1, artifacts: '["models/churn.pkl","reports/churn.md"]', metrics: null },
      ]);
      expect(await ledgerRows(db, "SELECT verdict, met_count, total_count FROM goal_gate_evaluations")).toEqual([
        { verdict: "PARTIAL", met_count: 2, total_count: 3 },
      ]);
      // The contract was the goalpost for an evaluation: it can no longer change.
      const moved = await refused(
        db,
        1,
        "set-goal-contract",
        String(goal),
        JSON.stringify({
          ...contract,
          acceptance_criteria: contract.acceptance_criteria.slice(0, 2).concat([{ id: "AC3", kind: "finding_count", minCount: 1 }]),
        }),
      );
      expect(moved.stderr).toContain("can no longer change");
    });

    it("the last allowed attempt without success BLOCKS the goal; no later attempt is started", async () => {
      const db = await ledgerWorkspace(engine);
      const goal = await sessionWithGoal(db);
      await ok(
        db,
        "set-goal-contract",
        String(goal),
        JSON.stringify({
          goal_text: "Accuracy >= 90%",
          max_goal_attempts: 2,
          acceptance_criteria: [{ id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.9 }],
        }),
      );
      const first = await judge(db, goal, await attempt(db, goal, { model: "logistic-regression", evidence: ["--metrics", '{"cv_accuracy_mean":0.7}'] }), 90);
      expect(first.code).toBe(1);
      expect(first.stdout).toContain("attempt 1 of 2 (attempt #1): PARTIAL");
      const second = await judge(
        db,
        goal,
        await attempt(db, goal, { model: "random-forest", evidence: ["--metrics", '{"cv_accuracy_mean":0.8}', "--markers", "METRIC:baseline_accuracy"] }),
        90,
      );
      expect(second.code).toBe(1);
      expect(second.stdout).toContain("attempt 2 of 2 (attempt #2): BLOCKED");
      expect(second.stdout).toContain("  reason: max goal attempts (2) reached without success");
      expect(second.stdout).toContain("Pivot: goal looks unachievable (0 attempts left)");
      expect(second.stdout).toContain("2 distinct approaches (logistic-regression, random-forest) failed to meet the goal");
      expect(second.stderr).toBe(`proofgate: goal ${goal} is BLOCKED after attempt 2 of 2: Goal criteria not met: 0/1 criteria passed\n`);
      const closed = await refused(db, 1, "start-attempt", String(goal), "--agent-id", "developer_1");
      expect(closed.stderr).toContain(`goal ${goal} is BLOCKED`);
      expect(await ledgerRows(db, "SELECT attempt_number, verdict FROM goal_gate_evaluations ORDER BY id")).toEqual([
        { attempt_number: 1, verdict: "PARTIAL" },
        { attempt_number: 2, verdict: "BLOCKED" },
      ]);
      const tree = await ok(db, "get-goal-tree", "s");
      expect(tree.stdout).toContain(`#${goal} [1] Build a churn model — BLOCKED, 2/2 attempts, contract of 1 acceptance criterion`);
    });

    it("an attempt's own agent may not score it (exit 1); a trust score needs a finished attempt", async () => {
      const db = await ledgerWorkspace(engine);
      const goal = await sessionWithGoal(db);
      const running = (await okJson<{ attempt: { id: number } }>(db, "start-attempt", String(goal), "--agent-id", "developer_1")).attempt.id;
      const early = await refused(db, 1, "record-trust-score", String(running), "90", "--agent-id", "verifier_1");
      expect(early.stderr).toContain("has no result yet");
      await ok(db, "finish-attempt", String(running), "completed", "--agent-id", "developer_1");
      const own = await refused(db, 1, "--json", "record-trust-score", String(running), "95", "--agent-id", "developer_1");
      expect(JSON.parse(own.stderr)).toEqual({
        error: { rule: "trust_score.own_attempt", message: `developer_1 recorded attempt ${running} and may not score its own evidence` },
      });
      const unscored = await refused(db, 1, "evaluate-goal", String(goal), String(running), "--agent-id", "verifier_1");
      expect(unscored.stderr).toContain("a verifier must score its evidence first");
      expect(await ledgerCount(db, "SELECT * FROM trust_scores")).toBe(0);
      const scored = await ok(db, "record-trust-score", String(running), "72.5", "--notes", "baseline not reproduced", "--agent-id", "verifier_1");
      expect(scored.stdout).toBe(`✓ Trust score 72.5 for attempt ${running} by verifier_1 (the trust gate fails: it needs 80)\n`);
      expect(await ledgerRows(db, "SELECT score, notes, actor FROM trust_scores")).toEqual([
        { score: 72.5, notes: "baseline not reproduced", actor: "verifier_1" },
      ]);
    });
  });

  describe("003's shots on goal through the command line", () => {
    it("a failed implementation attempt, a breakdown into two sub-goals, validation runs and a merge, shown in the goal tree", async () => {
      const db = await ledgerWorkspace(engine);
      const { dir } = db;
      const root = await sessionWithGoal(db, "bazel", "Migrate the monorepo to Bazel");
      const step = await okJson<{ id: number; order: number }>(db, "add-validation-step", String(root), "bazel build //...");
      expect(step.order).toBe(1);
      const main = await okJson<{ id: number }>(db, "create-branch", "bazel", "main");
      const branch = await okJson<{ id: number }>(
        db,
        "create-branch",
        "bazel",
        "goal-1",
        "--parent-branch",
        String(main.id),
        "--parent-commit",
        "3f2a9c1",
        "--reason",
        "goal",
        "--created-by-goal",
        String(root),
      );
      const worktree = await okJson<{ id: number }>(
        db,
        "create-worktree",
        String(branch.id),
        path.join(dir, "wt-1"),
        "--start-sha",
        "3f2a9c1",
        "--reason",
        "attempt",
      );
      const prompt = file(dir, "prompt.md", "Migrate the build to Bazel.", false);
      const started = await okJson<{ attempt: Record<string, unknown>; tools: { name: string }[] }>(
        db,
        "start-attempt",
        String(root),
        "--model",
        "model-a",
        "--prompt-file",
        prompt,
        "--start-commit",
        "3f2a9c1",
        "--worktree",
        String(worktree.id),
        "--tools",
        "read_file,write_file,bazel_build",
        "--agent-id",
        "developer_1",
      );
      expect(started.attempt).toMatchObject({
        goalId: root,
        attemptType: "implementation",
        model: "model-a",
        prompt: "Migrate the build to Bazel.",
        startCommitSha: "3f2a9c1",
        worktreeId: worktree.id,
      });
      expect(started.tools.map((t) => t.name)).toEqual(["read_file", "write_file", "bazel_build"]);
      const implementation = started.attempt.id as number;
      await ok(
        db,
        "record-tool-calls",
        String(implementation),
        JSON.stringify([
          { tool: "read_file", input: { path: "BUILD" }, output: "…" },
          { tool: "bazel_build", input: "//...", output: "ERROR: 12 targets failed" },
        ]),
        "--agent-id",
        "developer_1",
      );
      await ok(
        db,
        "finish-attempt",
        String(implementation),
        "completed",
        "--end-commit",
        "9b1e44d",
        "--diff-file",
        file(dir, "diff.patch", "--- a/BUILD\n+++ b/BUILD\n", false),
        "--detail",
        "validation failed",
        "--agent-id",
        "developer_1",
      );
      const failedRun = await ok(
        db,
        "record-validation-run",
        String(implementation),
        String(step.id),
        "1",
        "--output-file",
        file(dir, "build.log", "ERROR: 12 targets failed", false),
        "--agent-id",
        "developer_1",
      );
      expect(failedRun.stdout).toBe(`✓ Validation step ${step.id} on attempt ${implementation}: failed (exit 1, run #1)\n`);

      // The goal is too big: a breakdown attempt proposes two sub-goals.
      const breakdown = (
        await okJson<{ attempt: { id: number; attemptType: string } }>(
          db,
          "start-attempt",
          String(root),
          "--type",
          "breakdown",
          "--model",
          "model-b",
          "--tools",
          '["read_file",{"name":"bazel_query","description":"query the graph"}]',
          "--agent-id",
          "orchestrator",
        )
      ).attempt;
      expect(breakdown.attemptType).toBe("breakdown");
      await ok(db, "finish-attempt", String(breakdown.id), "completed", "--agent-id", "orchestrator");
      const notJudged = await refused(db, 1, "evaluate-goal", String(root), String(breakdown.id), "--agent-id", "verifier_1");
      expect(notJudged.stderr).toContain("is a breakdown");
      const made = await ok(
        db,
        "create-goal",
        "bazel",
        "Port //app",
        "--parent",
        String(root),
        "--created-by-attempt",
        String(breakdown.id),
        "--agent-id",
        "orchestrator",
      );
      expect(made.stdout).toBe(`✓ Created goal 2 in session bazel (sub-goal 1 of goal ${root}, from breakdown attempt ${breakdown.id})\n`);
      await ok(db, "create-goal", "bazel", "Port //lib", "--parent", String(root), "--created-by-attempt", String(breakdown.id), "--agent-id", "orchestrator");
      const subStep = await okJson<{ id: number; source: string }>(db, "add-validation-step", "2", "bazel build //app/...");
      expect(subStep.source).toBe("breakdown");

      // The first sub-goal succeeds on its own branch, validated and merged back.
      const sub = await attempt(db, 2, { status: "success", evidence: ["--end-commit", "aa11bb2"] });
      await ok(db, "record-validation-run", String(sub), String(subStep.id), "0", "--agent-id", "developer_1");
      expect((await judge(db, 2, sub, 91)).code).toBe(0);
      const merged = await ok(
        db,
        "record-merge",
        String(branch.id),
        String(main.id),
        "--from-commit",
        "aa11bb2",
        "--to-commit",
        "3f2a9c1",
        "--result-commit",
        "77c0de1",
        "--agent-id",
        "orchestrator",
      );
      expect(merged.stdout).toBe(`✓ Recorded merge 1: branch ${branch.id} into ${main.id} (77c0de1)\n`);

      const tree = await ok(db, "get-goal-tree", "bazel");
      expect(tree.stdout.split("\n")).toEqual([
        "Goals of session bazel:",
        `  #${root} [1] Migrate the monorepo to Bazel — not evaluated, 1 attempt`,
        `      · attempt #${implementation} (attempt 1): model-a, completed, 2 tool calls`,
        `      · attempt #${breakdown.id} (breakdown): model-b, completed, 0 tool calls`,
        `    #2 [1] Port //app — SUCCESS, 1 attempt, from breakdown attempt #${breakdown.id}`,
        `        · attempt #${sub} (attempt 1): model-a, success, 0 tool calls, trust 91, SUCCESS`,
        `    #3 [2] Port //lib — not evaluated, 0 attempts, from breakdown attempt #${breakdown.id}`,
        "",
      ]);
      const json = await okJson<{ goals: { goal: { id: number }; children: { goal: { goalText: string; source: string; createdByAttemptId: number } }[] }[] }>(
        db,
        "get-goal-tree",
        "bazel",
      );
      expect(json.goals.map((g) => g.goal.id)).toEqual([root]);
      expect(json.goals[0]!.children.map((c) => [c.goal.goalText, c.goal.source, c.goal.createdByAttemptId])).toEqual([
        ["Port //app", "breakdown", breakdown.id],
        ["Port //lib", "breakdown", breakdown.id],
      ]);
      const detail = await okJson<{ validationSteps: { command: string }[]; branches: { name: string }[]; children: unknown[] }>(db, "get-goal", String(root));
      expect(detail.validationSteps.map((s) => s.command)).toEqual(["bazel build //..."]);
      expect(detail.branches.map((b) => b.name)).toEqual(["goal-1"]);
      expect(detail.children).toHaveLength(2);
      const shot = await okJson<{
        result: { status: string; endCommitSha: string; diff: string; statusDetail: string };
        validationRuns: { exitCode: number; command: string; output: string }[];
        tools: { name: string }[];
      }>(db, "get-attempt", String(implementation));
      expect(shot.result).toMatchObject({
        status: "completed",
        endCommitSha: "9b1e44d",
        diff: "--- a/BUILD\n+++ b/BUILD\n",
        statusDetail: "validation failed",
      });
      expect(shot.validationRuns).toMatchObject([{ exitCode: 1, command: "bazel build //...", output: "ERROR: 12 targets failed" }]);
      expect(shot.tools.map((t) => t.name)).toEqual(["bazel_build", "read_file", "write_file"]);
      expect(await ledgerRows(db, "SELECT name, description FROM tools ORDER BY id")).toEqual([
        { name: "read_file", description: null },
        { name: "write_file", description: null },
        { name: "bazel_build", description: null },
        { name: "bazel_query", description: "query the graph" },
      ]);
      expect(await ledgerRows(db, "SELECT from_branch_id, to_branch_id, result_commit_sha FROM merges")).toEqual([
        { from_branch_id: branch.id, to_branch_id: main.id, result_commit_sha: "77c0de1" },
      ]);
    });

    it("records a batch of 200 tool calls in one call and one transaction, then pages through them", async () => {
      const db = await ledgerWorkspace(engine);
      const { dir } = db;
      const goal = await sessionWithGoal(db);
      const id = (await okJson<{ attempt: { id: number } }>(db, "start-attempt", String(goal), "--tools", "read_file", "--agent-id", "developer_1")).attempt.id;
      const calls = Array.from({ length: 200 }, (_, i) => ({
        tool: i % 2 === 0 ? "read_file" : "grep",
        input: { path: `src/file_${i}.ts` },
        output: i === 7 ? "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" : `line ${i}`,
      }));
      const first = await ok(db, "record-tool-calls", String(id), file(dir, "calls.json", JSON.stringify(calls)), "--agent-id", "developer_1");
      expect(first.stdout).toBe(`✓ Recorded 200 tool calls for attempt ${id} (#1–#200; secrets redacted in 1 call)\n`);
      const more = await okJson<{ count: number; firstOrder: number; lastOrder: number }>(
        db,
        "record-tool-calls",
        String(id),
        '[{"tool":"write_file","input":"raw text"}]',
      );
      expect(more).toMatchObject({ count: 1, firstOrder: 201, lastOrder: 201 });
      expect(await ledgerRows(db, 'SELECT count(*) AS n, min("order") AS lo, max("order") AS hi, count(DISTINCT tool_id) AS tools FROM tool_calls')).toEqual([
        { n: 201, lo: 1, hi: 201, tools: 3 },
      ]);
      expect(await ledgerCount(db, "SELECT * FROM events WHERE type = 'attempt.tool_calls_recorded'")).toBe(2);
      expect((await ledgerRows<{ output: string }>(db, 'SELECT output FROM tool_calls WHERE "order" = 8'))[0]!.output).not.toContain("ghp_0123456789");
      const page = await okJson<{ toolCalls: { order: number }[]; nextCursor: number | null }>(
        db,
        "get-attempt",
        String(id),
        "--cursor",
        "150",
        "--limit",
        "40",
      );
      expect(page.toolCalls.map((c) => c.order)).toEqual(Array.from({ length: 40 }, (_, i) => 151 + i));
      expect(page.nextCursor).toBe(190);
      // A finished attempt takes no more calls.
      await ok(db, "finish-attempt", String(id), "tool_limit", "--agent-id", "developer_1");
      const late = await refused(db, 1, "record-tool-calls", String(id), '[{"tool":"read_file"}]');
      expect(late.stderr).toContain("takes no more tool calls");
    });
  });

  describe("the commands' contract with scripts", () => {
    // Bad arguments open no ledger: one, never written, serves them all.
    let untouched: Ledger;
    // Unknown ids are refused before anything is written: one ledger with a goal and an attempt serves them all.
    let seeded: Ledger;
    let events: number;
    beforeAll(async () => {
      untouched = await ledgerWorkspace(engine);
      seeded = await ledgerWorkspace(engine);
      await attempt(seeded, await sessionWithGoal(seeded));
      events = await ledgerCount(seeded, "SELECT * FROM events");
    });

    it.each([
      [["create-goal", "bad id!", "x"], "argument 'session'"],
      [["create-goal", "s", "   "], "goal_text"],
      [["create-goal", "s", "x", "--parent", "first"], "--parent"],
      [["create-goal", "s", "x", "--order", "0"], "--order"],
      [["create-goal", "s", "x", "--created-by-attempt", "-3"], "--created-by-attempt"],
      [["add-validation-step", "one", "npm test"], "argument 'goal_id'"],
      [["add-validation-step", "1", ""], "command"],
      [["set-goal-contract", "1", "{not json"], "argument 'contract_json'"],
      [["set-goal-contract", "1", "[1]"], "argument 'contract_json'"],
      [["set-goal-contract", "1", '{"goal_text":"x","goalText":"y","acceptance_criteria":[]}'], "goalText is given twice"],
      [
        ["set-goal-contract", "1", '{"goal_text":"x","acceptance_criteria":[]}'],
        "contract_json.acceptanceCriteria: must list at least one acceptance criterion",
      ],
      [
        ["set-goal-contract", "1", '{"goal_text":"x","acceptance_criteria":[{"id":"AC1","kind":"metric_threshold","metric":"acc","op":">="}]}'],
        "contract_json.acceptanceCriteria[0].target",
      ],
      [
        ["set-goal-contract", "1", '{"goal_text":"x","acceptance_criteria":[{"id":"AC1","kind":"artifact_exists","artifactPattern":"[a"}]}'],
        "contract_json.acceptanceCriteria[0].artifactPattern",
      ],
      [
        ["set-goal-contract", "1", '{"goal_text":"x","max_goal_attempts":0,"acceptance_criteria":[{"id":"AC1","kind":"finding_count","min_count":1}]}'],
        "contract_json.maxGoalAttempts",
      ],
      [
        ["set-goal-contract", "1", '{"goal_text":"x","owner":"pm","acceptance_criteria":[{"id":"AC1","kind":"finding_count","minCount":1}]}'],
        "contract_json.owner",
      ],
      [["set-goal-contract", "1", "@/nonexistent/contract.json"], "argument 'contract_json'"],
      [["create-branch", "s", "main", "--parent-commit", "HEAD"], "--parent-commit"],
      [["create-branch", "s", "main", "--created-by-goal", "x"], "--created-by-goal"],
      [["create-worktree", "b", "/tmp/wt"], "argument 'branch_id'"],
      [["create-worktree", "1", "/tmp/wt", "--start-sha", "nope"], "--start-sha"],
      [["start-attempt", "0"], "argument 'goal_id'"],
      [["start-attempt", "1", "--type", "review"], "--type"],
      [["start-attempt", "1", "--prompt", "a", "--prompt-file", "/etc/hostname"], "--prompt"],
      [["start-attempt", "1", "--prompt-file", "/nonexistent/prompt.md"], "--prompt-file"],
      [["start-attempt", "1", "--start-commit", "main"], "--start-commit"],
      [["start-attempt", "1", "--worktree", "w1"], "--worktree"],
      [["start-attempt", "1", "--tools", "[1]"], "--tools"],
      [["record-tool-calls", "1", '{"tool":"x"}'], "argument 'calls_json'"],
      [["record-tool-calls", "1", "[]"], "calls_json"],
      [["record-tool-calls", "1", '[{"tool":"read_file"},{"name":"x"}]'], "calls_json[1]"],
      [["finish-attempt", "1", "done"], "argument 'status'"],
      [["finish-attempt", "1", "completed", "--metrics", '{"acc":"high"}'], "--metrics.acc"],
      [["finish-attempt", "1", "completed", "--metrics", "[0.9]"], "--metrics"],
      [["finish-attempt", "1", "completed", "--findings", "-1"], "--findings"],
      [["finish-attempt", "1", "completed", "--end-commit", "tip"], "--end-commit"],
      [["finish-attempt", "1", "completed", "--output-file", "/nonexistent/out.log"], "--output-file"],
      [["record-validation-run", "1", "2", "zero"], "argument 'exit_code'"],
      [["record-validation-run", "1", "step", "0"], "argument 'step_id'"],
      [["record-trust-score", "1", "101"], "argument 'score'"],
      [["record-trust-score", "1", "high"], "argument 'score'"],
      [["record-merge", "1", "2", "--to-commit", "3f2a9c1", "--result-commit", "77c0de1"], "--from-commit"],
      [["record-merge", "1", "1", "--from-commit", "aa11bb2", "--to-commit", "3f2a9c1", "--result-commit", "77c0de1"], "to_branch_id"],
      [["evaluate-goal", "1"], "attempt_id"],
      [["evaluate-goal", "g1", "1"], "argument 'goal_id'"],
      [["get-goal-tree", "bad id!"], "argument 'session'"],
      [["get-goal", "1.5"], "argument 'goal_id'"],
      [["get-attempt", "1", "--limit", "501"], "--limit"],
    ])("%j exits 2 naming %s, and creates or writes no database", async (args, name) => {
      const run = await cli([...args, ...untouched.flag]);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
      expect(run.stderr).toContain(name);
      expect(await ledgerUntouched(untouched)).toBe(true);
    });

    it.each([
      [["get-goal", "99"]],
      [["get-goal-tree", "nope"]],
      [["create-goal", "nope", "x"]],
      [["create-goal", "s", "x", "--parent", "99"]],
      [["add-validation-step", "99", "npm test"]],
      [["set-goal-contract", "99", '{"goalText":"x","acceptanceCriteria":[{"id":"AC1","kind":"finding_count","minCount":1}]}']],
      [["start-attempt", "99"]],
      [["start-attempt", "1", "--worktree", "99"]],
      [["create-worktree", "99", "/tmp/wt"]],
      [["record-merge", "98", "99", "--from-commit", "aa11bb2", "--to-commit", "3f2a9c1", "--result-commit", "77c0de1"]],
      [["get-attempt", "99"]],
      [["finish-attempt", "99", "completed"]],
      [["record-tool-calls", "99", '[{"tool":"read_file"}]']],
      [["record-trust-score", "99", "90"]],
      [["record-validation-run", "1", "99", "0"]],
      [["evaluate-goal", "1", "99"]],
      [["evaluate-goal", "99", "1"]],
    ])("%j exits 3 and writes nothing", async (args) => {
      const run = await cli([...args, ...seeded.flag]);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 3, stdout: "" });
      expect(run.stderr).toMatch(/^proofgate: .*does not exist/);
      expect(await ledgerCount(seeded, "SELECT * FROM events")).toBe(events);
    });

    it("refuses an attempt judged as another goal's (exit 2), and a second result (exit 1), writing nothing", async () => {
      const db = await ledgerWorkspace(engine);
      const goal = await sessionWithGoal(db);
      const other = (await okJson<{ id: number }>(db, "create-goal", "s", "Other")).id;
      const id = await attempt(db, goal);
      await ok(db, "record-trust-score", String(id), "90", "--agent-id", "verifier_1");
      const wrong = await refused(db, 2, "evaluate-goal", String(other), String(id));
      expect(wrong.stderr).toBe(`proofgate: goal_id: attempt ${id} works on goal ${goal}, not goal ${other}\n`);
      const again = await refused(db, 1, "finish-attempt", String(id), "success");
      expect(again.stderr).toContain("results are never replaced");
      expect(await ledgerCount(db, "SELECT * FROM goal_gate_evaluations")).toBe(0);
      expect(await ledgerRows(db, "SELECT status FROM attempt_results")).toEqual([{ status: "completed" }]);
    });

    it("--quiet drops a write's confirmation; --json prints the row", async () => {
      const db = await ledgerWorkspace(engine);
      await ok(db, "create-session", "s", "simple", "req");
      expect((await ok(db, "--quiet", "create-goal", "s", "Quiet goal")).stdout).toBe("");
      expect(await okJson(db, "create-goal", "s", "Loud goal", "--order", "5")).toMatchObject({
        id: 2,
        sessionId: "s",
        goalText: "Loud goal",
        order: 5,
        source: "cli",
        parentGoalId: null,
      });
    });

    it("documents every goal and attempt command with an example", async () => {
      const commands = [
        "create-goal",
        "add-validation-step",
        "set-goal-contract",
        "create-branch",
        "create-worktree",
        "start-attempt",
        "record-tool-calls",
        "finish-attempt",
        "record-validation-run",
        "record-merge",
        "record-trust-score",
        "evaluate-goal",
        "get-goal-tree",
        "get-goal",
        "get-attempt",
      ];
      const help = await cli(["help"]);
      for (const name of commands) {
        expect(help.stdout).toContain(name);
        const run = await cli([name, "--help"]);
        expect({ name, code: run.code }).toEqual({ name, code: 0 });
        expect(run.stdout).toMatch(new RegExp(`Examples?:\\n {2}proofgate .*${name}`));
      }
    });
  });
});
