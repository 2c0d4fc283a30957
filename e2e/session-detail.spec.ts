/**
 * The session page: what it shows is checked against the ledger's rows, and every action is taken
 * through the UI on a session this test creates (local-mode CLI on the server's database), so runs
 * in both projects, and repeated runs, never compete for the same task.
 */
import type { Locator, Page } from "@playwright/test";
import type Database from "better-sqlite3";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect as baseExpect, screenshot, test } from "./fixtures";
import { authFile, emailOf } from "./users";

// Each test drives the real CLI several times (a process each) besides the browser, on a shared
// machine: generous waits, except where a test states its own limit (the live 2 s).
test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

const LEAD = emailOf("lead");

/** One `proofgate` call in local mode, acting under the agent label `agent`; it must succeed. */
async function cli(agent: string, ...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB, "--agent-id", agent, "--quiet"]);
  expect(run.code, `proofgate ${args.join(" ")}\n${run.stderr}`).toBe(0);
}

/** A new session whose tasks `claimant` has claimed, with a path and a link as evidence. */
async function sessionWithClaims(claimant: string, keys: string[]): Promise<string> {
  const id = uniqueId("e2e-detail");
  await cli("orchestrator", "create-session", id, "parallel", "Session detail e2e: JWT auth");
  for (const key of keys) {
    await cli("orchestrator", "create-task-group", key, id, `Build ${key}`);
    await cli(claimant, "claim", id, key, "--evidence", `artifacts/${key}.txt,https://ci.example.com/runs/${key}`);
  }
  return id;
}

const card = (page: Page, key: string) => page.getByTestId(`task-${key}`);
const column = (page: Page, status: string) => page.getByTestId(`column-${status}`);

async function open(page: Page, sessionId: string) {
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByRole("heading", { level: 1, name: sessionId })).toBeVisible();
  // Actions are taken once the live stream is up, as a person would see it.
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
}

async function startMove(page: Page, key: string, move: string): Promise<Locator> {
  await card(page, key).getByRole("button", { name: move, exact: true }).click();
  const dialog = page.getByRole("dialog", { name: `${move} ${key}` });
  await expect(dialog).toBeVisible();
  return dialog;
}

function taskRow(ledger: Database.Database, sessionId: string, key: string) {
  return ledger
    .prepare("SELECT status, verified_by, blocked_by, proofpack, failures, version FROM tasks WHERE session_id = ? AND key = ?")
    .get(sessionId, key) as {
    status: string;
    verified_by: string | null;
    blocked_by: string | null;
    proofpack: string | null;
    failures: string | null;
    version: number;
  };
}

test("the session page shows the ledger: header, tasks by state, criteria with discrepancies and history, completion checks @mobile", async ({
  page,
  ledger,
}, testInfo) => {
  // The seeded session with the most task states, discrepancies and resets, among those with a
  // reset task and a blocked one with failures (what this test reads; sessions other specs create
  // may have more states but neither).
  const { id } = ledger
    .prepare(
      `SELECT t.session_id AS id FROM tasks t
       WHERE t.session_id IN (SELECT session_id FROM tasks WHERE reset_count > 0)
         AND t.session_id IN (SELECT session_id FROM tasks WHERE status = 'blocked' AND failures IS NOT NULL)
       GROUP BY t.session_id
       ORDER BY count(DISTINCT t.status) DESC,
         (SELECT count(*) FROM success_criteria c WHERE c.session_id = t.session_id AND c.verifier_status IS NOT NULL AND c.verifier_status != c.status) DESC,
         sum(t.reset_count > 0) DESC, t.session_id LIMIT 1`,
    )
    .get() as { id: string };
  const session = ledger.prepare("SELECT * FROM sessions WHERE id = ?").get(id) as {
    status: string;
    source: string;
    enforcement: string;
    mode: string;
    requirements: string;
  };
  await page.goto(`/sessions/${id}`);

  await expect(page.getByRole("heading", { level: 1 })).toHaveText(id);
  await expect(page.getByText(session.requirements)).toBeVisible();
  const header = page.locator("header").filter({ has: page.getByRole("heading", { level: 1 }) });
  for (const fact of [session.status, session.source, session.enforcement, session.mode]) await expect(header).toContainText(fact);
  const nav = page.getByRole("navigation", { name: "Session views" });
  await expect(nav.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
  for (const tab of ["Goals", "Logs", "Tokens"])
    await expect(nav.getByRole("link", { name: tab })).toHaveAttribute("href", `/sessions/${id}/${tab.toLowerCase()}`);

  // Every task in the column of its state.
  const tasks = ledger.prepare("SELECT key, status, failures, verification, reset_count FROM tasks WHERE session_id = ? ORDER BY id").all(id) as {
    key: string;
    status: string;
    failures: string | null;
    verification: string | null;
    reset_count: number;
  }[];
  for (const status of ["pending", "in_progress", "claimed", "verified", "blocked", "completed"]) {
    const keys = tasks.filter((t) => t.status === status).map((t) => `task-${t.key}`);
    const cards = column(page, status).getByRole("article");
    await expect(cards).toHaveCount(keys.length);
    if (keys.length > 0) expect(await cards.evaluateAll((els) => els.map((el) => el.getAttribute("data-testid")))).toEqual(keys);
  }
  const blocked = tasks.find((t) => t.status === "blocked" && t.failures);
  expect(blocked, "the chosen session has a blocked task with failures").toBeDefined();
  for (const failure of JSON.parse(blocked!.failures!) as string[]) await expect(card(page, blocked!.key)).toContainText(failure);
  await expect(page.getByText("unverified", { exact: true })).toHaveCount(tasks.filter((t) => t.verification === "none").length);
  await page.mouse.move(0, 0);
  await screenshot(page, "session-detail", testInfo.project.name);

  // A task that was reset keeps its failed attempt in the history.
  const reset = tasks.find((t) => t.reset_count > 0);
  expect(reset, "the chosen session has a task that was reset").toBeDefined();
  const transitions = ledger
    .prepare("SELECT count(*) AS n FROM task_transitions tt JOIN tasks t ON t.id = tt.task_id WHERE t.session_id = ? AND t.key = ?")
    .get(id, reset!.key) as { n: number };
  await card(page, reset!.key).getByText("Details and history").click();
  await expect(card(page, reset!.key).getByTestId("transition")).toHaveCount(transitions.n);
  await expect(card(page, reset!.key).getByRole("region", { name: "Attempt 1" })).toContainText("(previous)");
  await expect(card(page, reset!.key).getByRole("region", { name: "Attempt 1" })).toContainText("approve_reset");

  // Criteria: the verifier's finding beside the claim, disagreements marked, each with its history.
  const criteria = ledger.prepare("SELECT id, criterion, status, verifier_status FROM success_criteria WHERE session_id = ? ORDER BY id").all(id) as {
    id: number;
    criterion: string;
    status: string;
    verifier_status: string | null;
  }[];
  const rows = page.getByTestId("criterion");
  await expect(rows).toHaveCount(criteria.length);
  const disagreeing = criteria.filter((c) => c.verifier_status !== null && c.verifier_status !== c.status);
  await expect(page.locator("[data-testid=criterion][data-discrepancy]")).toHaveCount(disagreeing.length);
  for (const c of disagreeing)
    await expect(rows.filter({ hasText: c.criterion })).toContainText(`the PM says ${c.status}, the verifier found ${c.verifier_status}`);
  const first = criteria[0]!;
  const updates = ledger.prepare("SELECT count(*) AS n FROM criterion_updates WHERE criterion_id = ?").get(first.id) as { n: number };
  const firstRow = rows.filter({ hasText: first.criterion }).first();
  await firstRow.getByText(`Change history (${updates.n})`).click();
  await expect(firstRow.getByTestId("criterion-update")).toHaveCount(updates.n);

  // The gate's verdict now: required criteria satisfied by the status the verifier found (or the
  // PM's, without a finding), or blocked with evidence naming an external blocker.
  const required = ledger
    .prepare("SELECT status, evidence, verifier_status, verifier_evidence FROM success_criteria WHERE session_id = ? AND required_for_completion = 1")
    .all(id) as { status: string; evidence: string | null; verifier_status: string | null; verifier_evidence: string | null }[];
  const satisfied = required.filter((c) => {
    const effective = c.verifier_status ?? c.status;
    const claimEvidence = c.status === "blocked" ? c.evidence : null;
    const evidence = (c.verifier_status === "blocked" ? (c.verifier_evidence ?? claimEvidence) : claimEvidence) ?? "";
    return effective === "met" || (effective === "blocked" && evidence.trim() !== "");
  });
  const gateNow = page.getByTestId("gate-now");
  await expect(gateNow).toContainText(`${satisfied.length}/${required.length} required criteria met`);
  // This session has tasks that are not completed, so the gate cannot accept it.
  await expect(gateNow).toContainText("Right now the gate would reject");

  // Completion checks, newest first, with the reasons the gate gave.
  const checks = ledger
    .prepare("SELECT id, accepted, reasons, met_count, total_count FROM completion_checks WHERE session_id = ? ORDER BY id DESC")
    .all(id) as { id: number; accepted: number; reasons: string; met_count: number; total_count: number }[];
  await expect(page.getByTestId("completion-check")).toHaveCount(checks.length);
  if (checks.length > 0) {
    const newest = checks[0]!;
    const row = page.getByTestId("completion-check").first();
    await expect(row).toContainText(`#${newest.id}`);
    await expect(row).toContainText(newest.accepted ? "accepted" : "rejected");
    await expect(row).toContainText(`${newest.met_count}/${newest.total_count}`);
    for (const reason of JSON.parse(newest.reasons) as string[]) await expect(row).toContainText(reason);
    await expect(page.getByTestId("gate-latest")).toContainText(`Last recorded check #${newest.id}`);
  } else {
    await expect(page.getByTestId("gate-latest")).toHaveText("No completion check recorded for this session yet.");
  }
});

test("the session's views share its header: the tabs open Goals, Logs and Tokens and mark where you are", async ({ page, ledger }) => {
  const { id } = ledger.prepare("SELECT id FROM sessions ORDER BY id LIMIT 1").get() as { id: string };
  await page.goto(`/sessions/${id}`);
  const nav = page.getByRole("navigation", { name: "Session views" });
  for (const tab of ["Goals", "Logs", "Tokens", "Overview"]) {
    await nav.getByRole("link", { name: tab }).click();
    await expect(page).toHaveURL(tab === "Overview" ? `/sessions/${id}` : `/sessions/${id}/${tab.toLowerCase()}`);
    await expect(nav.getByRole("link", { name: tab })).toHaveAttribute("aria-current", "page");
    await expect(nav.locator("[aria-current=page]")).toHaveCount(1);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(id);
    await expect(page.getByTestId("gate-now")).toBeVisible();
  }
  await expect(page.getByRole("heading", { name: "Tasks", level: 2 })).toBeVisible();
});

test("the completion checks history lists every recorded check, newest first, with its result, counts, reasons and who ran it", async ({ page, ledger }) => {
  const { id } = ledger.prepare("SELECT session_id AS id FROM completion_checks GROUP BY session_id ORDER BY count(*) DESC, session_id LIMIT 1").get() as {
    id: string;
  };
  const checks = ledger
    .prepare("SELECT id, accepted, reasons, met_count, total_count, actor, role, claimed_verdict FROM completion_checks WHERE session_id = ? ORDER BY id DESC")
    .all(id) as {
    id: number;
    accepted: number;
    reasons: string;
    met_count: number;
    total_count: number;
    actor: string;
    role: string | null;
    claimed_verdict: string | null;
  }[];
  expect(checks.length, "a seeded session has several checks").toBeGreaterThan(1);
  await page.goto(`/sessions/${id}`);
  const rows = page.getByTestId("completion-check");
  await expect(rows).toHaveCount(checks.length);
  for (const [i, check] of checks.entries()) {
    const row = rows.nth(i);
    await expect(row.getByRole("cell").first()).toHaveText(`#${check.id}`);
    await expect(row).toContainText(check.accepted ? "accepted" : "rejected");
    await expect(row).toContainText(`${check.met_count}/${check.total_count}`);
    await expect(row).toContainText(check.role ? `${check.actor} (${check.role})` : check.actor);
    if (check.claimed_verdict) await expect(row).toContainText(`claimed: ${check.claimed_verdict}`);
    const reasons = JSON.parse(check.reasons) as string[];
    if (reasons.length > 0) await expect(row.getByRole("listitem")).toHaveText(reasons);
  }
  await expect(page.getByTestId("gate-latest")).toContainText(
    `Last recorded check #${checks[0]!.id}: ${checks[0]!.accepted ? "accepted" : "rejected"} by ${checks[0]!.actor}`,
  );
});

test("a lead verifies a claimed task: the checks and notes become its proofpack @mobile", async ({ page, ledger }, testInfo) => {
  const id = await sessionWithClaims("developer_1", ["auth_api"]);
  await open(page, id);
  await expect(column(page, "claimed").getByTestId("task-auth_api")).toContainText("developer_1");
  // Evidence: the relative path and the https link are links; nothing else is.
  await card(page, "auth_api").getByText("Details and history").click();
  await expect(card(page, "auth_api").getByRole("link", { name: "artifacts/auth_api.txt" }).first()).toHaveAttribute("href", "artifacts/auth_api.txt");
  await expect(card(page, "auth_api").getByRole("link", { name: "https://ci.example.com/runs/auth_api" }).first()).toHaveAttribute("target", "_blank");

  const dialog = await startMove(page, "auth_api", "Verify");
  await dialog.getByLabel("Check 1 name").fill("unit_tests");
  await dialog.getByRole("button", { name: "Add check" }).click();
  await dialog.getByLabel("Check 2 name").fill("coverage");
  await dialog.getByLabel("Notes").fill("142/142 passing, coverage 81%");
  await screenshot(page, "session-verify-dialog", testInfo.project.name);
  await dialog.getByRole("button", { name: "Verify task" }).click();
  await expect(dialog).toBeHidden();

  const verified = column(page, "verified").getByTestId("task-auth_api");
  await expect(verified).toBeVisible();
  await expect(verified).toContainText(`Verifier${LEAD}`);
  await expect(verified.getByTestId("proofpack-summary")).toContainText("PASSED");
  await expect(verified.getByTestId("proofpack-summary")).toContainText("2 passed, 0 failed");
  const row = taskRow(ledger, id, "auth_api");
  expect(row.status).toBe("verified");
  expect(row.verified_by).toBe(LEAD);
  expect(JSON.parse(row.proofpack!)).toEqual({
    verdict: "PASSED",
    checks: [
      { name: "unit_tests", passed: true },
      { name: "coverage", passed: true },
    ],
    notes: "142/142 passing, coverage 81%",
  });

  // And completes it: the dialog is the confirmation.
  const complete = await startMove(page, "auth_api", "Complete");
  await expect(complete).toContainText("Completed is final");
  await complete.getByRole("button", { name: "Complete task" }).click();
  await expect(column(page, "completed").getByTestId("task-auth_api")).toBeVisible();
  expect(taskRow(ledger, id, "auth_api").status).toBe("completed");
});

test.describe("refused moves", () => {
  // The refusals below are real 4xx answers from the API, which the browser logs; each test asserts the message shown.
  test.use({ expectedConsoleErrors: /^Failed to load resource: the server responded with a status of (400|403|409) / });

  test("a failed check cannot verify, and blocking needs failures: the server's refusals are shown, then the block goes through", async ({ page, ledger }) => {
    const id = await sessionWithClaims("developer_2", ["checkout"]);
    await open(page, id);

    const verify = await startMove(page, "checkout", "Verify");
    await verify.getByLabel("Check 1 name").fill("e2e");
    await verify.getByLabel("Check 1 result").selectOption("fail");
    await verify.getByRole("button", { name: "Verify task" }).click();
    await expect(verify.getByRole("alert")).toContainText('check "e2e" failed, so the verdict cannot be PASSED: block the task instead');
    await verify.getByRole("button", { name: "Cancel" }).click();
    expect(taskRow(ledger, id, "checkout").status).toBe("claimed");

    const block = await startMove(page, "checkout", "Block");
    await block.getByRole("button", { name: "Block task" }).click();
    await block.getByRole("button", { name: "Yes, block checkout" }).click();
    await expect(block.getByRole("alert")).toHaveText("failures: blocking a task needs at least one failure");

    await block.getByLabel("Failures").fill("e2e - checkout flow times out\n\nlint - 3 errors");
    await block.getByLabel("Check 1 name").fill("e2e");
    await block.getByRole("button", { name: "Block task" }).click();
    await expect(block.getByRole("note")).toContainText("Block checkout with 2 failures?");
    await block.getByRole("button", { name: "Yes, block checkout" }).click();
    await expect(block).toBeHidden();

    const blocked = column(page, "blocked").getByTestId("task-checkout");
    await expect(blocked).toContainText("e2e - checkout flow times out");
    await expect(blocked).toContainText("lint - 3 errors");
    await expect(blocked.getByTestId("proofpack-summary")).toContainText("BLOCKED");
    const row = taskRow(ledger, id, "checkout");
    expect(row).toMatchObject({ status: "blocked", blocked_by: LEAD });
    expect(JSON.parse(row.failures!)).toEqual(["e2e - checkout flow times out", "lint - 3 errors"]);
  });

  test("the signed-in lead cannot verify or block their own claim: the server refuses and says why", async ({ page, ledger }) => {
    const id = await sessionWithClaims(LEAD, ["own_work"]);
    await open(page, id);
    await expect(card(page, "own_work")).toContainText(`Claimant${LEAD}`);

    const verify = await startMove(page, "own_work", "Verify");
    await verify.getByLabel("Check 1 name").fill("unit_tests");
    await verify.getByRole("button", { name: "Verify task" }).click();
    await expect(verify.getByRole("alert")).toHaveText(`${LEAD} claimed this task and cannot verify it: a different verifier must`);
    await verify.getByRole("button", { name: "Cancel" }).click();

    const block = await startMove(page, "own_work", "Block");
    await block.getByLabel("Failures").fill("not mine to judge");
    await block.getByRole("button", { name: "Block task" }).click();
    await block.getByRole("button", { name: "Yes, block own_work" }).click();
    await expect(block.getByRole("alert")).toHaveText(`${LEAD} claimed this task and cannot block it: a different verifier must`);
    await block.getByRole("button", { name: "Cancel" }).click();

    await expect(column(page, "claimed").getByTestId("task-own_work")).toBeVisible();
    expect(taskRow(ledger, id, "own_work").status).toBe("claimed");
  });

  test("when someone else moves the task first, the open form says so and the server's conflict is shown", async ({ page, ledger }) => {
    const id = await sessionWithClaims("developer_1", ["race"]);
    await open(page, id);
    const { version } = taskRow(ledger, id, "race");

    const dialog = await startMove(page, "race", "Verify");
    await dialog.getByLabel("Check 1 name").fill("unit_tests");
    await cli("qa_expert_1", "verify", id, "race", "--check", "unit_tests=pass");
    // The page is live: the form learns the task moved underneath it.
    await expect(dialog.getByRole("status")).toContainText("This task changed since you opened this form: it is now verified");
    await dialog.getByRole("button", { name: "Verify task" }).click();
    await expect(dialog.getByRole("alert")).toHaveText(
      `Someone else moved this task first — task race changed since version ${version} (now ${version + 1}, verified): reload and retry`,
    );
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(column(page, "verified").getByTestId("task-race")).toContainText("qa_expert_1");
    expect(taskRow(ledger, id, "race").verified_by).toBe("qa_expert_1");
  });

  test("approve reset on the task: back to pending, the failed attempt kept in its history", async ({ page, ledger }) => {
    const id = await sessionWithClaims("developer_3", ["flaky"]);
    await cli("verifier_1", "block", id, "flaky", "--failures", '["integration - payment sandbox returns 500"]', "--check", "integration=fail");
    await open(page, id);

    const dialog = await startMove(page, "flaky", "Approve reset");
    await dialog.getByRole("button", { name: "Approve reset" }).click();
    await dialog.getByRole("button", { name: "Yes, reset flaky" }).click();
    await expect(dialog.getByRole("alert")).toHaveText("reason: a reason is required");
    await dialog.getByLabel("Reason").fill("Sandbox fixed; retry");
    await dialog.getByRole("button", { name: "Approve reset" }).click();
    await dialog.getByRole("button", { name: "Yes, reset flaky" }).click();
    await expect(dialog).toBeHidden();

    const pending = column(page, "pending").getByTestId("task-flaky");
    await expect(pending).toContainText("attempt 2");
    await pending.getByText("Details and history").click();
    const previous = pending.getByRole("region", { name: "Attempt 1" });
    await expect(previous).toContainText("(previous)");
    await expect(previous).toContainText("integration - payment sandbox returns 500");
    await expect(previous).toContainText("Claim judged: developer_3");
    await expect(previous).toContainText("Reason: Sandbox fixed; retry");
    await expect(pending.getByRole("region", { name: "Attempt 2" })).toContainText("No moves yet");
    expect(taskRow(ledger, id, "flaky").status).toBe("pending");
  });
});

test("running the completion check records it and shows every reason the gate gave", async ({ page, ledger }) => {
  const id = await sessionWithClaims("developer_1", ["api"]);
  await cli(
    "project_manager",
    "save-success-criteria",
    id,
    JSON.stringify([{ criterion: "All tests passing", status: "met", actual: "142/142", evidence: "ci.log" }, { criterion: "Coverage >70%" }]),
  );
  await open(page, id);
  await expect(page.getByTestId("gate-latest")).toHaveText("No completion check recorded for this session yet.");
  await expect(page.getByTestId("gate-now")).toContainText("Right now the gate would reject");
  await expect(page.getByTestId("gate-now")).toContainText("1/2 required criteria met");

  await page.getByRole("button", { name: "Run completion check" }).click();
  const result = page.getByTestId("check-result");
  await expect(result).toContainText("rejected");
  const check = ledger
    .prepare("SELECT id, reasons, met_count, total_count, actor FROM completion_checks WHERE session_id = ? ORDER BY id DESC LIMIT 1")
    .get(id) as { id: number; reasons: string; met_count: number; total_count: number; actor: string };
  expect(check.actor).toBe(LEAD);
  const reasons = JSON.parse(check.reasons) as string[];
  expect(reasons).toEqual(expect.arrayContaining(["Only 1/2 criteria met", 'Criterion "Coverage >70%" is not met: pending']));
  expect(reasons.some((r) => r.includes("claimed") && r.includes("api"))).toBe(true);
  await expect(result).toContainText(`Check #${check.id} recorded`);
  await expect(result).toContainText("1/2 required criteria met");
  await expect(result.getByRole("listitem")).toHaveText(reasons);
  await expect(page.getByTestId("completion-check")).toHaveCount(1);
  await expect(page.getByTestId("gate-latest")).toContainText(`Last recorded check #${check.id}`);
  // The header's verdict is the same gate on the same rows, recorded or not.
  await expect(page.getByTestId("gate-now").getByRole("listitem")).toHaveText(reasons);
});

test.describe("as a viewer", () => {
  test.use({ storageState: authFile("viewer") });

  test("a viewer sees the tasks but no action and no completion-check button", async ({ page, ledger }) => {
    const { id } = ledger
      .prepare(
        "SELECT session_id AS id FROM tasks GROUP BY session_id HAVING sum(status = 'claimed') > 0 AND sum(status = 'blocked') > 0 AND sum(status = 'verified' OR status = 'completed') > 0 ORDER BY session_id LIMIT 1",
      )
      .get() as { id: string };
    await page.goto(`/sessions/${id}`);
    await expect(column(page, "claimed").getByRole("article").first()).toBeVisible();
    await expect(column(page, "blocked").getByRole("article").first()).toBeVisible();
    await expect(page.getByRole("button", { name: /^(Verify|Block|Complete|Approve reset|Run completion check)$/ })).toHaveCount(0);
    await expect(page.getByRole("group", { name: /^Actions for / })).toHaveCount(0);
  });
});

test.describe("an unknown session", () => {
  test.use({ expectedConsoleErrors: /^Failed to load resource: the server responded with a status of 404 / });

  test("is a 404 page, not an error page", async ({ page }) => {
    for (const id of ["no-such-session", "bad%20id"]) {
      const response = await page.goto(`/sessions/${id}`);
      expect(response?.status(), id).toBe(404);
      await expect(page.getByText("This page could not be found.")).toBeVisible();
    }
  });
});

test("shows the error patterns and strategies the session's project has learned (BAZINGA's context engineering)", async ({ page }) => {
  const id = uniqueId("e2e-learning");
  const project = `proj-${id}`;
  await cli("orchestrator", "create-session", id, "parallel", "Learning e2e", "--metadata", JSON.stringify({ project_id: project }));
  await cli("developer_1", "save-error-pattern", project, "ModuleNotFoundError", "No module named 'requests' in /app/main.py line 3", "pip install requests");
  await cli("tech_lead_1", "save-strategy", project, "implementation", "Pin dependencies before the first test run", "--framework", "pytest");
  await open(page, id);
  const section = page.getByRole("region", { name: /Error patterns and strategies/ });
  await expect(section).toContainText(`of project ${project}`);
  await expect(section).toContainText("ModuleNotFoundError: No module named '...' in .../main.py line N");
  await expect(section).toContainText("Fix: pip install requests");
  await expect(section).toContainText("Pin dependencies before the first test run");
  await expect(section).toContainText("implementation · helped 1×");
});
