import type Database from "better-sqlite3";
import { formatValue, statusLabel } from "../app/(dashboard)/sessions/[id]/goals/gate-data";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect, hydrated, screenshot, test } from "./fixtures";

/** An agent's command in local mode on the server's database; its `--json` answer. */
async function agent(...args: string[]): Promise<Record<string, unknown>> {
  const run = await proofgate(["--db", E2E_DB, "--json", "--agent-id", "orchestrator", ...args]);
  expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

interface GoalRow {
  id: number;
  sessionId: string;
  goalText: string;
  maxAttempts: number | null;
}

interface AttemptRow {
  id: number;
  model: string;
  attemptType: string;
  status: string | null;
  calls: number;
}

function goalOf(ledger: Database.Database, where: string, ...params: unknown[]): GoalRow {
  return ledger
    .prepare(
      `SELECT g.id, g.session_id AS sessionId, g.goal_text AS goalText, c.max_goal_attempts AS maxAttempts FROM goals g LEFT JOIN goal_contracts c ON c.goal_id = g.id WHERE ${where}`,
    )
    .get(...params) as GoalRow;
}

function attemptsOf(ledger: Database.Database, goalId: number): AttemptRow[] {
  return ledger
    .prepare(
      `SELECT a.id, a.model, a.attempt_type AS attemptType, r.status, (SELECT count(*) FROM tool_calls t WHERE t.attempt_id = a.id) AS calls
       FROM attempts a LEFT JOIN attempt_results r ON r.attempt_id = a.id WHERE a.goal_id = ? ORDER BY a.id`,
    )
    .all(goalId) as AttemptRow[];
}

/** `attempt 2 of 3`, `attempt 2` or `breakdown`, counted the way the ledger defines it. */
function labels(attempts: AttemptRow[], max: number | null): string[] {
  let n = 0;
  return attempts.map((a) => (a.attemptType === "breakdown" ? "breakdown" : max === null ? `attempt ${++n}` : `attempt ${++n} of ${max}`));
}

test("a goal shows its contract, its attempts in order and its latest goal-gate evaluation as the ledger holds them @mobile", async ({
  page,
  ledger,
}, testInfo) => {
  // The goal evaluated most often: several attempts, a contract and a pivot history.
  const { goalId } = ledger.prepare("SELECT goal_id AS goalId FROM goal_gate_evaluations GROUP BY goal_id ORDER BY count(*) DESC, goal_id LIMIT 1").get() as {
    goalId: number;
  };
  const goal = goalOf(ledger, "g.id = ?", goalId);
  const attempts = attemptsOf(ledger, goal.id);
  const latest = ledger.prepare("SELECT * FROM goal_gate_evaluations WHERE goal_id = ? ORDER BY id DESC LIMIT 1").get(goal.id) as Record<string, unknown>;
  const criteria = ledger
    .prepare("SELECT key FROM acceptance_criteria a JOIN goal_contracts c ON c.id = a.contract_id WHERE c.goal_id = ? ORDER BY a.position")
    .all(goal.id) as { key: string }[];

  await page.goto(`/sessions/${goal.sessionId}/goals`);
  await expect(page.getByRole("heading", { name: "Goals", exact: true })).toBeVisible();
  const card = page.getByRole("article", { name: `Goal ${goal.id}: ${goal.goalText}` });
  await expect(card).toBeVisible();

  // The contract: every acceptance criterion, and the attempt limit.
  const contract = card.getByRole("region", { name: `Contract of goal ${goal.id}` });
  await expect(contract).toContainText(`Max attempts${goal.maxAttempts}`);
  await expect(contract.getByRole("row")).toHaveCount(criteria.length + 1);
  for (const c of criteria) await expect(contract.getByRole("rowheader", { name: c.key, exact: true })).toBeVisible();

  // Attempts in order, each with its model, result status and tool-call count.
  const items = card.getByRole("region", { name: `Attempts at goal ${goal.id}` }).getByRole("listitem");
  await expect(items).toHaveCount(attempts.length);
  const expected = labels(attempts, goal.maxAttempts);
  for (const [i, attempt] of attempts.entries()) {
    const item = items.nth(i);
    await expect(item).toHaveAccessibleName(`Attempt ${attempt.id}: ${expected[i]}`);
    await expect(item).toContainText(attempt.model);
    await expect(item).toContainText(attempt.status ? attempt.status.replaceAll("_", " ") : "running");
    await expect(item).toContainText(`${attempt.calls} tool call${attempt.calls === 1 ? "" : "s"}`);
  }

  // The latest evaluation: verdict, attempt n of max, trust score and every criterion with actual vs target.
  const evaluation = card.getByRole("group", { name: `Latest evaluation of goal ${goal.id}` });
  await expect(evaluation).toContainText(String(latest.verdict));
  await expect(evaluation.getByTestId("evaluation-attempt")).toHaveText(`attempt ${latest.attempt_number} of ${latest.max_attempts}`);
  await expect(evaluation.getByTestId("evaluation-trust")).toContainText(
    `Trust score ${formatValue(latest.trust_score)} (trust gate ${latest.trust_passed ? "passed" : "failed"})`,
  );
  await expect(evaluation).toContainText(`(${latest.met_count}/${latest.total_count} met)`);
  const results = JSON.parse(String(latest.criteria_results)) as { criterionId: string; status: string; actual: unknown; target: string }[];
  for (const result of results) {
    const row = evaluation.getByRole("row").filter({ has: page.getByRole("rowheader", { name: new RegExp(`^${result.criterionId} `) }) });
    await expect(row.getByRole("cell")).toHaveText([statusLabel(result.status), formatValue(result.actual), result.target]);
  }
  const pivot = JSON.parse(String(latest.pivot)) as { suggestions: string[] };
  for (const suggestion of pivot.suggestions) await expect(evaluation).toContainText(suggestion);

  await screenshot(page, "session-goals", testInfo.project.name);
});

test("opening an attempt loads its tool calls, validation runs and evaluations; a long output is collapsed until asked @mobile", async ({
  page,
  ledger,
}, testInfo) => {
  // An attempt (evaluated, if the data has one) one of whose tool calls printed a long output.
  const call = ledger
    .prepare(
      `SELECT t.attempt_id AS attemptId, t."order" AS "order", t.output FROM tool_calls t
       WHERE length(t.output) > 2000 ORDER BY t.attempt_id IN (SELECT attempt_id FROM goal_gate_evaluations) DESC, t.id LIMIT 1`,
    )
    .get() as { attemptId: number; order: number; output: string };
  const { goalId } = ledger.prepare("SELECT goal_id AS goalId FROM attempts WHERE id = ?").get(call.attemptId) as { goalId: number };
  const goal = goalOf(ledger, "g.id = ?", goalId);
  const attempts = attemptsOf(ledger, goal.id);
  const label = labels(attempts, goal.maxAttempts)[attempts.findIndex((a) => a.id === call.attemptId)]!;
  const calls = ledger.prepare(`SELECT tool_name AS tool FROM tool_calls WHERE attempt_id = ? ORDER BY "order"`).all(call.attemptId) as { tool: string }[];
  const runs = ledger
    .prepare(
      "SELECT r.exit_code AS exitCode FROM validation_runs r JOIN attempt_results ar ON ar.id = r.attempt_result_id WHERE ar.attempt_id = ? ORDER BY r.id",
    )
    .all(call.attemptId) as { exitCode: number }[];
  const evaluations = ledger.prepare("SELECT verdict FROM goal_gate_evaluations WHERE attempt_id = ? ORDER BY id").all(call.attemptId) as { verdict: string }[];

  await page.goto(`/sessions/${goal.sessionId}/goals`);
  const item = page.getByRole("listitem", { name: `Attempt ${call.attemptId}: ${label}` });
  const toggle = item.getByRole("button", { name: label, exact: true });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  // A click before React hydrated the button would do nothing.
  await hydrated(page);
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");

  const callList = item.getByRole("list", { name: `Tool calls of attempt ${call.attemptId}` });
  await expect(callList.getByRole("listitem")).toHaveCount(calls.length);
  for (const [i, c] of calls.entries()) await expect(callList.getByRole("listitem").nth(i)).toContainText(`#${i + 1} ${c.tool}`);
  for (const run of runs) await expect(item).toContainText(`exit code ${run.exitCode}`);
  await expect(item.getByRole("group", { name: /^Evaluation \d+ of attempt/ })).toHaveCount(evaluations.length);

  const output = item.getByLabel(`Output of tool call ${call.order}`, { exact: true });
  const lastLine = call.output.trim().split("\n").at(-1)!;
  await expect(output).not.toContainText(lastLine);
  const more = callList
    .getByRole("listitem")
    .nth(call.order - 1)
    .getByRole("button", { name: /^Show more/ });
  await more.click();
  await expect(output).toHaveText(call.output);
  await expect(
    callList
      .getByRole("listitem")
      .nth(call.order - 1)
      .getByRole("button", { name: "Show less" }),
  ).toHaveAttribute("aria-expanded", "true");

  await screenshot(page, "session-goals-attempt", testInfo.project.name);
});

test("sub-goals from a breakdown sit under their parent goal", async ({ page, ledger }) => {
  const child = goalOf(ledger, "g.parent_goal_id IS NOT NULL ORDER BY g.id LIMIT 1");
  test.skip(!child, "the demo data has no breakdown");
  const { parentId, createdBy } = ledger
    .prepare("SELECT parent_goal_id AS parentId, created_by_attempt_id AS createdBy FROM goals WHERE id = ?")
    .get(child.id) as { parentId: number; createdBy: number };
  const siblings = ledger.prepare("SELECT count(*) AS n FROM goals WHERE parent_goal_id = ?").get(parentId) as { n: number };

  await page.goto(`/sessions/${child.sessionId}/goals`);
  const subGoals = page.getByRole("region", { name: `Sub-goals of goal ${parentId}` });
  await expect(subGoals.getByRole("heading", { name: new RegExp(`^Sub-goals \\(${siblings.n}\\)`) })).toBeVisible();
  const card = subGoals.getByRole("article", { name: `Goal ${child.id}: ${child.goalText}` });
  await expect(card).toContainText(`from breakdown (attempt ${createdBy})`);
  // The parent's breakdown attempt is listed among its attempts.
  await expect(
    page.getByRole("region", { name: `Attempts at goal ${parentId}` }).getByRole("listitem", { name: `Attempt ${createdBy}: breakdown` }),
  ).toBeVisible();
});

test("a goal's merges are listed with both branches and the resulting commit", async ({ page, ledger }) => {
  const merge = ledger
    .prepare(
      `SELECT f.created_by_goal_id AS goalId, f.name AS fromName, t.name AS toName, m.result_commit_sha AS result, g.session_id AS sessionId, g.goal_text AS goalText
       FROM merges m JOIN branches f ON f.id = m.from_branch_id JOIN branches t ON t.id = m.to_branch_id JOIN goals g ON g.id = f.created_by_goal_id ORDER BY m.id LIMIT 1`,
    )
    .get() as { goalId: number; fromName: string; toName: string; result: string; sessionId: string; goalText: string } | undefined;
  test.skip(!merge, "the demo data has no merge");
  const { n } = ledger
    .prepare(
      "SELECT count(*) AS n FROM merges WHERE from_branch_id IN (SELECT id FROM branches WHERE created_by_goal_id = ?) OR to_branch_id IN (SELECT id FROM branches WHERE created_by_goal_id = ?)",
    )
    .get(merge!.goalId, merge!.goalId) as { n: number };

  await page.goto(`/sessions/${merge!.sessionId}/goals`);
  const extras = page.getByRole("region", { name: `Validation steps, branches, merges and evaluation history of goal ${merge!.goalId}` });
  // A click that lands before React hydrated the button does nothing: click until the panel says it is open.
  const toggle = extras.getByRole("button", { name: "Validation steps, branches, merges and evaluation history" });
  await expect(async () => {
    if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true", { timeout: 1_000 });
  }).toPass();
  await expect(extras.getByRole("heading", { name: `Merges (${n})` })).toBeVisible();
  const item = extras.getByRole("listitem").filter({ hasText: merge!.result.slice(0, 12) });
  await expect(item).toContainText(`${merge!.fromName} @`);
  await expect(item).toContainText(`into ${merge!.toName}`);
});

test("a session without goals says how agents create one", async ({ page, ledger }) => {
  const session = ledger.prepare("SELECT id FROM sessions WHERE id NOT IN (SELECT session_id FROM goals) ORDER BY id LIMIT 1").get() as { id: string };
  await page.goto(`/sessions/${session.id}/goals`);
  await expect(page.getByText("No goals in this session.")).toBeVisible();
  await expect(page.getByText(`proofgate create-goal ${session.id}`)).toBeVisible();
});

test("a goal and attempt an agent records from the command line appear without a reload; 120 tool calls load 50 at a time", async ({ page }) => {
  const sessionId = uniqueId("e2e-goals");
  await agent("create-session", sessionId, "simple", "Goals recorded while the page is open");
  await page.goto(`/sessions/${sessionId}/goals`);
  await expect(page.getByText("No goals in this session.")).toBeVisible();
  // The stream starts from the newest event when it connects: a write before that is not news to it.
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");

  const goal = await agent("create-goal", sessionId, "Make the flaky upload test deterministic");
  const card = page.getByRole("article", { name: `Goal ${goal.id}: Make the flaky upload test deterministic` });
  await expect(card).toBeVisible();

  const { attempt } = (await agent("start-attempt", String(goal.id), "--model", "gpt-5", "--tools", "read_file")) as { attempt: { id: number } };
  const calls = Array.from({ length: 120 }, (_, i) => ({ tool: "read_file", input: { path: `src/upload/part-${i + 1}.ts` }, output: `read part ${i + 1}` }));
  await agent("record-tool-calls", String(attempt.id), JSON.stringify(calls));
  const item = card.getByRole("listitem", { name: `Attempt ${attempt.id}: attempt 1` });
  await expect(item).toContainText("120 tool calls");
  await expect(item).toContainText("running");

  await item.getByRole("button", { name: "attempt 1", exact: true }).click();
  const list = item.getByRole("list", { name: `Tool calls of attempt ${attempt.id}` });
  const more = item.getByRole("button", { name: "Load more tool calls" });
  await expect(list.getByRole("listitem")).toHaveCount(50);
  await more.click();
  await expect(list.getByRole("listitem")).toHaveCount(100);
  await more.click();
  await expect(list.getByRole("listitem")).toHaveCount(120);
  await expect(more).toHaveCount(0);
  await expect(list.getByRole("listitem").last()).toContainText("#120 read_file");
  await expect(list.getByRole("listitem").last()).toContainText("src/upload/part-120.ts");
});
