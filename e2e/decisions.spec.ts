/**
 * Every human decision in the dashboard (issue 20, item 2): declining a reset request, a verifier's
 * finding on a criterion, a criterion's required flag, a session's enforcement, completing or
 * failing a session. Each is taken by a lead through its confirmation dialog on a session this
 * test creates (local-mode CLI on the server's database), checked against the ledger's rows, and
 * seen by a second page through the live stream; a viewer is offered none of them, and the server
 * refuses each one the viewer forces through the API.
 */
import type { Page } from "@playwright/test";
import type Database from "better-sqlite3";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect as baseExpect, screenshot, test } from "./fixtures";
import { authFile, emailOf } from "./users";

test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });
/** How soon another page must show a decision: it learns it from the live stream alone. */
const LIVE = { timeout: 5_000 };
const LEAD = emailOf("lead");
/** The refusals these tests provoke on purpose (a blank reason, a rejected gate, a viewer forcing a write). */
const PROVOKED =
  /status of (400|403) \(.*\/api\/trpc\/(task\.declineReset|criteria\.verify|criteria\.setRequired|session\.setEnforcement|session\.updateStatus)\b/;
test.use({ expectedConsoleErrors: PROVOKED });

async function cli(agent: string, ...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB, "--agent-id", agent, "--quiet"]);
  expect(run.code, `proofgate ${args.join(" ")}\n${run.stderr}`).toBe(0);
}

/** A session with task `payments` blocked and its reset requested, and two required criteria. */
async function sessionToDecide(): Promise<string> {
  const id = uniqueId("e2e-decide");
  await cli("orchestrator", "create-session", id, "parallel", "Decisions e2e: payments");
  await cli("orchestrator", "create-task-group", "payments", id, "Payment retries");
  await cli("developer_2", "claim", id, "payments", "--evidence", "artifacts/payments.txt");
  await cli("verifier_1", "block", id, "payments", "--failures", '["integration - duplicate charge on retry"]');
  await cli("orchestrator", "request-reset", id, "payments", "--reason", "Idempotency key added; please retry");
  await cli(
    "orchestrator",
    "save-success-criteria",
    id,
    '[{"criterion":"All tests passing","required_for_completion":true},{"criterion":"Docs updated","required_for_completion":true}]',
  );
  return id;
}

async function open(page: Page, sessionId: string) {
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByRole("heading", { level: 1, name: sessionId })).toBeVisible();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
}

/** A second page in the same browser, on `path`, live: it sees a decision only through the stream. */
async function elsewhere(page: Page, path: string): Promise<Page> {
  const other = await page.context().newPage();
  await other.goto(path);
  await expect(other.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  return other;
}

const criterion = (page: Page, text: string) => page.getByTestId("criterion").filter({ has: page.getByRole("heading", { name: text, exact: true }) });

function lastTransition(ledger: Database.Database, sessionId: string, key: string) {
  return ledger
    .prepare(
      "SELECT tt.move, tt.from_status, tt.to_status, tt.actor, tt.role, tt.reason FROM task_transitions tt JOIN tasks t ON t.id = tt.task_id WHERE t.session_id = ? AND t.key = ? ORDER BY tt.id DESC LIMIT 1",
    )
    .get(sessionId, key);
}

test("decline a reset request from the task card and from the inbox: the task stays blocked, the request closed with the reason", async ({
  page,
  ledger,
}, testInfo) => {
  const id = await sessionToDecide();
  await open(page, id);
  // Filtered to this session: the shared e2e ledger holds more reset requests than the first page.
  const inbox = await elsewhere(page, `/approvals?session=${id}`);
  const inboxItem = inbox.getByTestId(`approval-${id}-payments`);
  await expect(inboxItem).toContainText("Reset requested by orchestrator");

  const card = page.getByTestId("column-blocked").getByTestId("task-payments");
  await card.getByRole("button", { name: "Decline reset", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Decline reset payments" });
  await dialog.getByLabel("Reason").fill("The duplicate charge still reproduces on main");
  await dialog.getByRole("button", { name: "Decline reset" }).click();
  await expect(dialog.getByRole("note")).toContainText("The task stays blocked");
  await screenshot(page, "decision-decline-reset", testInfo.project.name);
  await dialog.getByRole("button", { name: "Yes, decline for payments" }).click();
  await expect(dialog).toBeHidden();

  await expect(card).toBeVisible();
  await expect(card.getByText("reset requested")).toHaveCount(0);
  await expect(card.getByRole("button", { name: "Decline reset" })).toHaveCount(0);
  expect(lastTransition(ledger, id, "payments")).toEqual({
    move: "decline_reset",
    from_status: "blocked",
    to_status: "blocked",
    actor: LEAD,
    role: "lead",
    reason: "The duplicate charge still reproduces on main",
  });
  expect(ledger.prepare("SELECT status, reset_requested, reset_count FROM tasks WHERE session_id = ? AND key = 'payments'").get(id)).toEqual({
    status: "blocked",
    reset_requested: 0,
    reset_count: 0,
  });
  expect(ledger.prepare("SELECT count(*) AS n FROM events WHERE session_id = ? AND type = 'task.reset_declined'").get(id)).toEqual({ n: 1 });

  // The inbox, open all along, learns it live: the task still waits, with no request to answer.
  await expect(inboxItem.getByText("Reset requested by")).toHaveCount(0, LIVE);
  await expect(inboxItem.getByRole("button", { name: "Decline reset" })).toHaveCount(0);

  // Asked again, declined from the inbox this time.
  await cli("developer_2", "request-reset", id, "payments", "--reason", "Fixed on main as well");
  await expect(inboxItem).toContainText("Fixed on main as well", LIVE);
  await inboxItem.getByRole("button", { name: "Decline reset" }).click();
  const again = inbox.getByRole("dialog", { name: "Decline reset payments" });
  await again.getByRole("button", { name: "Decline reset" }).click();
  await again.getByRole("button", { name: "Yes, decline for payments" }).click();
  // No reason: the server refuses, and the dialog shows its words.
  await expect(again.getByRole("alert")).toContainText("a reason is required");
  await again.getByLabel("Reason").fill("CI is still red");
  await again.getByRole("button", { name: "Decline reset" }).click();
  await again.getByRole("button", { name: "Yes, decline for payments" }).click();
  await expect(again).toBeHidden();
  await expect(inbox.getByRole("status").filter({ hasText: `${id}: the reset request of payments was declined; it stays blocked` })).toBeVisible();
  expect(lastTransition(ledger, id, "payments")).toMatchObject({ move: "decline_reset", reason: "CI is still red" });
  await inbox.close();
});

test("a verifier's finding on a criterion, and making a criterion optional, seen live elsewhere", async ({ page, ledger }, testInfo) => {
  const id = await sessionToDecide();
  await open(page, id);
  const other = await elsewhere(page, `/sessions/${id}`);

  const tests = criterion(page, "All tests passing");
  await tests.getByRole("button", { name: "Record finding" }).click();
  const dialog = page.getByRole("dialog", { name: "Record a verifier's finding" });
  await dialog.getByRole("radio", { name: /^failed/ }).check();
  await dialog.getByRole("textbox", { name: "Actual" }).fill("3 of 120 failing");
  await dialog.getByRole("button", { name: "Record finding" }).click();
  await expect(dialog.getByRole("alert")).toContainText("Evidence: required");
  await dialog.getByRole("textbox", { name: "Evidence" }).fill("https://ci.example.com/runs/42");
  await dialog.getByRole("button", { name: "Record finding" }).click();
  await expect(dialog.getByRole("note")).toContainText("the completion gate trusts this finding");
  await screenshot(page, "decision-criterion-finding", testInfo.project.name);
  await dialog.getByRole("button", { name: "Yes, record failed" }).click();
  await expect(dialog).toBeHidden();
  expect(
    ledger
      .prepare(
        "SELECT verifier_status, verifier_actual, verifier_evidence, verifier_by FROM success_criteria WHERE session_id = ? AND criterion = 'All tests passing'",
      )
      .get(id),
  ).toEqual({
    verifier_status: "failed",
    verifier_actual: "3 of 120 failing",
    verifier_evidence: "https://ci.example.com/runs/42",
    verifier_by: LEAD,
  });
  await expect(criterion(other, "All tests passing")).toContainText("3 of 120 failing", LIVE);

  const docs = criterion(page, "Docs updated");
  await expect(docs.getByText("required", { exact: true })).toBeVisible();
  await docs.getByRole("button", { name: "Make optional" }).click();
  const flag = page.getByRole("dialog", { name: "Make this criterion optional" });
  await expect(flag.getByRole("note")).toContainText("The completion gate stops counting it");
  await flag.getByRole("button", { name: "Make optional" }).click();
  await expect(flag).toBeHidden();
  await expect(docs.getByText("optional", { exact: true })).toBeVisible();
  await expect(docs.getByRole("button", { name: "Make required" })).toBeVisible();
  expect(
    ledger.prepare("SELECT required_for_completion AS required FROM success_criteria WHERE session_id = ? AND criterion = 'Docs updated'").get(id),
  ).toEqual({ required: 0 });
  await expect(criterion(other, "Docs updated").getByText("optional", { exact: true })).toBeVisible(LIVE);
  await other.close();
});

test("switch a session's enforcement with a reason: the badge and the last switch's who/when/why, live elsewhere", async ({ page, ledger }, testInfo) => {
  const id = await sessionToDecide();
  await open(page, id);
  const other = await elsewhere(page, `/sessions/${id}`);
  const enforcement = page.getByTestId("enforcement");
  await expect(enforcement).toContainText("enforce");

  await enforcement.getByRole("button", { name: "Switch to observe" }).click();
  const dialog = page.getByRole("dialog", { name: `Switch ${id} to observe` });
  await dialog.getByRole("button", { name: "Switch to observe" }).click();
  await dialog.getByRole("button", { name: "Yes, switch to observe" }).click();
  // A blank reason is the server's to refuse; its message stays in the dialog.
  await expect(dialog.getByRole("alert")).toContainText("reason");
  await dialog.getByLabel("Reason").fill("Legacy orchestrator does not claim yet");
  await dialog.getByRole("button", { name: "Switch to observe" }).click();
  await expect(dialog.getByRole("note")).toContainText("recorded as unverified");
  await screenshot(page, "decision-enforcement", testInfo.project.name);
  await dialog.getByRole("button", { name: "Yes, switch to observe" }).click();
  await expect(dialog).toBeHidden();

  await expect(enforcement.getByRole("button", { name: "Switch to enforce" })).toBeVisible();
  const last = page.getByTestId("last-enforcement-switch");
  await expect(last).toContainText(`Switched to observe by ${LEAD} (lead)`);
  await expect(last).toContainText("Legacy orchestrator does not claim yet");
  await expect(last.locator("time")).toHaveCount(1);
  expect(ledger.prepare("SELECT enforcement FROM sessions WHERE id = ?").get(id)).toEqual({ enforcement: "observe" });
  await expect(other.getByTestId("last-enforcement-switch")).toContainText("Legacy orchestrator does not claim yet", LIVE);
  await other.close();
});

test("complete a session: unavailable while the gate rejects, recording nothing; a rejection arriving meanwhile is shown verbatim in the dialog; then fail it, seen live elsewhere @mobile", async ({
  page,
  ledger,
}, testInfo) => {
  const checks = (sessionId: string) => ledger.prepare("SELECT count(*) AS n FROM completion_checks WHERE session_id = ?").get(sessionId);

  // The gate rejects: Complete is disabled and says why (issue 35, item 5), and looking records no check.
  const rejected = await sessionToDecide();
  await open(page, rejected);
  const complete = page.getByTestId("session-header").getByRole("button", { name: "Complete session" });
  await expect(complete).toBeDisabled();
  const reasons = await page.evaluate(async (sessionId) => {
    const response = await fetch(`/api/trpc/completion.preview?input=${encodeURIComponent(JSON.stringify({ json: { sessionId } }))}`);
    return ((await response.json()) as { result: { data: { json: { reasons: string[] } } } }).result.data.json.reasons;
  }, rejected);
  expect(reasons.length).toBeGreaterThan(0);
  await expect(page.locator("#complete-unavailable")).toHaveText(
    `Complete is unavailable while the completion gate rejects this session (${reasons.length} reason${reasons.length === 1 ? "" : "s"}, listed below).`,
  );
  await expect(complete).toHaveAttribute("aria-describedby", "complete-unavailable");
  for (const reason of reasons) await expect(page.getByTestId("gate-now").getByText(reason, { exact: true })).toBeVisible();
  expect(checks(rejected)).toEqual({ n: 0 });

  // The gate accepts when the dialog opens, and an agent's write makes it reject before the lead confirms.
  const id = uniqueId("e2e-decide-race");
  await cli("orchestrator", "create-session", id, "simple", "Decisions e2e: the gate changes its mind");
  await cli("orchestrator", "save-success-criteria", id, '[{"criterion":"All tests passing","required_for_completion":true}]');
  await cli("project_manager", "update-success-criterion", id, "All tests passing", "--status", "met", "--evidence", "artifacts/tests.txt");
  await open(page, id);
  const other = await elsewhere(page, `/sessions/${id}`);
  await page.getByRole("button", { name: "Complete session" }).click();
  const dialog = page.getByRole("dialog", { name: `Complete ${id}` });
  await expect(dialog).toBeVisible();
  await cli("orchestrator", "create-task-group", "late-work", id, "Work found after the criteria were met");
  await dialog.getByRole("button", { name: "Run the gate and complete" }).click();
  const dialogReasons = dialog.getByRole("list", { name: "Why the gate rejected" });
  await expect(dialogReasons).toBeVisible();
  const check = ledger.prepare("SELECT accepted, reasons FROM completion_checks WHERE session_id = ? ORDER BY id DESC LIMIT 1").get(id) as {
    accepted: number;
    reasons: string;
  };
  expect(check.accepted).toBe(0);
  const recorded = JSON.parse(check.reasons) as string[];
  expect(recorded.length).toBeGreaterThan(0);
  await expect(dialogReasons.getByRole("listitem")).toHaveText(recorded);
  await expect(dialog.getByRole("alert")).toContainText("the completion gate rejected it");
  await screenshot(page, "decision-complete-rejected", testInfo.project.name);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  expect(ledger.prepare("SELECT status FROM sessions WHERE id = ?").get(id)).toEqual({ status: "active" });
  await expect(page.getByTestId("session-header").getByRole("button", { name: "Complete session" })).toBeDisabled();

  await page.getByRole("button", { name: "Mark failed" }).click();
  const fail = page.getByRole("dialog", { name: `Mark ${id} failed` });
  await fail.getByRole("button", { name: "Yes, mark failed" }).click();
  await expect(fail).toBeHidden();
  const header = page.getByTestId("session-header");
  await expect(header.getByRole("button", { name: "Complete session" })).toHaveCount(0);
  expect(ledger.prepare("SELECT status FROM sessions WHERE id = ?").get(id)).toEqual({ status: "failed" });
  await expect(other.getByTestId("session-header").getByRole("button", { name: "Mark failed" })).toHaveCount(0, LIVE);
  await expect(other.getByTestId("session-header").getByText("failed", { exact: true }).first()).toBeVisible();
  await other.close();
});

test("complete a session the gate accepts", async ({ page, ledger }) => {
  const id = uniqueId("e2e-decide-ok");
  await cli("orchestrator", "create-session", id, "simple", "Decisions e2e: a session that may complete");
  await cli("orchestrator", "save-success-criteria", id, '[{"criterion":"All tests passing","required_for_completion":true}]');
  await cli("project_manager", "update-success-criterion", id, "All tests passing", "--status", "met", "--evidence", "artifacts/tests.txt");
  await open(page, id);
  await page.getByRole("button", { name: "Complete session" }).click();
  const dialog = page.getByRole("dialog", { name: `Complete ${id}` });
  await dialog.getByRole("button", { name: "Run the gate and complete" }).click();
  await expect(dialog).toBeHidden();
  expect(ledger.prepare("SELECT status FROM sessions WHERE id = ?").get(id)).toEqual({ status: "completed" });
  expect(ledger.prepare("SELECT accepted FROM completion_checks WHERE session_id = ? ORDER BY id DESC LIMIT 1").get(id)).toEqual({ accepted: 1 });
  await expect(page.getByRole("button", { name: "Complete session" })).toHaveCount(0);
});

test.describe("as a viewer", () => {
  test.use({ storageState: authFile("viewer") });

  test("a viewer is offered none of the decisions, and the server refuses each one forced through the API", async ({ page, ledger }, testInfo) => {
    const id = await sessionToDecide();
    await open(page, id);
    await expect(page.getByTestId("task-payments")).toContainText("reset requested");
    await expect(page.getByTestId("enforcement")).toBeVisible();
    for (const name of [
      "Decline reset",
      "Approve reset",
      "Record finding",
      "Make optional",
      "Make required",
      /^Switch to/,
      "Complete session",
      "Mark failed",
    ]) {
      await expect(page.getByRole("button", { name })).toHaveCount(0);
    }
    await screenshot(page, "decision-viewer", testInfo.project.name);
    await page.goto(`/approvals?session=${id}`);
    await expect(page.getByTestId(`approval-${id}-payments`)).toBeVisible();
    await expect(page.getByRole("button", { name: "Decline reset" })).toHaveCount(0);

    const before = ledger.prepare("SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM task_transitions) AS moves").get();
    const forced: [string, unknown, string][] = [
      ["task.declineReset", { sessionId: id, key: "payments", reason: "forced" }, "task.decline_reset_role"],
      ["criteria.verify", { sessionId: id, criterion: "All tests passing", status: "met", evidence: "forced" }, "criteria.verify_role"],
      ["criteria.setRequired", { sessionId: id, criterion: "Docs updated", required: false }, "criteria.required_flag_role"],
      ["session.setEnforcement", { sessionId: id, enforcement: "observe", reason: "forced" }, "session.enforcement_role"],
      ["session.updateStatus", { sessionId: id, status: "failed" }, "session.status_role"],
    ];
    for (const [procedure, input, rule] of forced) {
      const answer = await page.evaluate(
        async ({ procedure, input }) => {
          const response = await fetch(`/api/trpc/${procedure}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ json: input }),
          });
          return { status: response.status, body: (await response.json()) as { error?: { json?: { data?: { rule?: string } } } } };
        },
        { procedure, input },
      );
      expect(answer.status, procedure).toBe(403);
      expect(answer.body.error?.json?.data?.rule, procedure).toBe(rule);
    }
    expect(ledger.prepare("SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM task_transitions) AS moves").get()).toEqual(before);
  });
});
