/**
 * The approval inbox: every blocked task across sessions in the order a lead should decide them,
 * checked against the ledger; approving a reset from it; and what a viewer is (not) offered.
 */
import type Database from "better-sqlite3";
import { PAGE_SIZE } from "../app/(dashboard)/approvals/inbox-view";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect as baseExpect, hydrated, screenshot, test } from "./fixtures";
import { authFile } from "./users";

// Each test drives the real CLI several times (a process each) besides the browser, on a shared
// machine: generous waits, except where a test states its own limit (the live 2 s).
test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

async function cli(agent: string, ...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB, "--agent-id", agent, "--quiet"]);
  expect(run.code, `proofgate ${args.join(" ")}\n${run.stderr}`).toBe(0);
}

/** The inbox's order, computed from the rows: reset requests first, then by when the task entered blocked. */
function expectedInbox(ledger: Database.Database) {
  return ledger
    .prepare(
      `SELECT t.session_id AS sessionId, t.key, t.reset_requested AS resetRequested, t.failures, t.claimed_by AS claimedBy,
         coalesce((SELECT tt.at FROM task_transitions tt WHERE tt.task_id = t.id AND tt.to_status = 'blocked' AND tt.from_status IS NOT 'blocked' ORDER BY tt.id DESC LIMIT 1), t.blocked_at, t.updated_at) AS since
       FROM tasks t WHERE t.status = 'blocked' ORDER BY t.reset_requested DESC, since ASC, t.id ASC`,
    )
    .all() as { sessionId: string; key: string; resetRequested: number; failures: string | null; claimedBy: string | null; since: number }[];
}

test("every blocked task across sessions, reset requests first, then the longest-waiting, with what a lead needs to decide @mobile", async ({
  page,
  ledger,
}, testInfo) => {
  await page.goto("/approvals");
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  const expected = expectedInbox(ledger);
  expect(expected.length, "the seeded ledger has blocked tasks").toBeGreaterThan(0);
  const requests = expected.filter((t) => t.resetRequested).length;

  const cards = page.getByRole("list").first().getByRole("article");
  // A page at a time: load the rest, as a lead would (once hydrated: a click before that does nothing).
  await hydrated(page);
  const more = page.getByRole("button", { name: /^Load more/ });
  while (await more.isVisible()) {
    const shown = await cards.count();
    await more.click();
    await expect(cards).not.toHaveCount(shown);
  }
  await expect(cards).toHaveCount(expected.length);
  expect(await cards.evaluateAll((els) => els.map((el) => el.getAttribute("data-testid")))).toEqual(expected.map((t) => `approval-${t.sessionId}-${t.key}`));
  await expect(page.getByTestId("inbox-count")).toHaveText(
    `${expected.length} blocked task${expected.length === 1 ? "" : "s"} waiting · ${requests} with a reset request`,
  );

  const first = expected[0]!;
  const item = page.getByTestId(`approval-${first.sessionId}-${first.key}`);
  if (first.resetRequested) await expect(item).toContainText("Reset requested by");
  if (first.claimedBy) await expect(item).toContainText(first.claimedBy);
  for (const failure of JSON.parse(first.failures ?? "[]") as string[]) await expect(item).toContainText(failure);
  await expect(item.getByRole("link", { name: first.sessionId, exact: true })).toHaveAttribute("href", `/sessions/${first.sessionId}`);
  // The wait is counted in the browser from when the task entered blocked.
  await expect(item.getByTestId("waited")).toContainText("waiting ");
  await expect(item.locator("time").first()).toHaveAttribute("datetime", new Date(first.since).toISOString());

  await page.mouse.move(0, 0);
  await screenshot(page, "approvals", testInfo.project.name);
});

test("nothing in the inbox moves as the page's scripts start, so a click aimed at a card's button lands on it", async ({ page }) => {
  // Layout shifts as Chromium reports them (the Layout Instability API), kept for the elements inside <main>.
  await page.addInitScript(() => {
    const shifts: string[] = [];
    (window as unknown as { mainShifts: string[] }).mainShifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as unknown as { sources: { node?: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[] }[])
        for (const source of entry.sources)
          if (source.node && document.querySelector("main")?.contains(source.node))
            shifts.push(
              `${source.node.nodeName} "${(source.node.textContent ?? "").slice(0, 40)}" y ${Math.round(source.previousRect.y)} → ${Math.round(source.currentRect.y)}`,
            );
    }).observe({ type: "layout-shift", buffered: true });
  });
  await page.goto("/approvals");
  await expect(page.getByTestId("waited").first()).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(await page.evaluate(() => (window as unknown as { mainShifts: string[] }).mainShifts)).toEqual([]);
});

test("approve reset from the inbox: the task leaves it and shows pending, its failed attempt kept in its history", async ({ page, ledger }) => {
  const id = uniqueId("e2e-inbox");
  await cli("orchestrator", "create-session", id, "parallel", "Inbox e2e: payments");
  await cli("orchestrator", "create-task-group", "payments", id, "Payment retries");
  await cli("developer_2", "claim", id, "payments", "--evidence", "artifacts/payments.txt");
  await cli("verifier_1", "block", id, "payments", "--failures", '["integration - duplicate charge on retry"]', "--check", "integration=fail");
  await cli("orchestrator", "request-reset", id, "payments", "--reason", "Idempotency key added; please retry");

  // Filtered to this session: the shared e2e ledger holds more reset requests than the first page.
  await page.goto(`/approvals?session=${id}`);
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  const item = page.getByTestId(`approval-${id}-payments`);
  await expect(item).toContainText("Reset requested by orchestrator");
  await expect(item).toContainText("Idempotency key added; please retry");
  await expect(item).toContainText("developer_2");
  await expect(item).toContainText("verifier_1");
  await expect(item).toContainText("integration - duplicate charge on retry");
  await expect(item.getByTestId("proofpack-summary")).toContainText("BLOCKED");
  await item.getByText("Checks and evidence").click();
  await expect(item.getByTestId("proofpack")).toContainText("integration");
  await expect(item).toContainText("artifacts/payments.txt");

  await item.getByRole("button", { name: "Approve reset" }).click();
  const dialog = page.getByRole("dialog", { name: "Approve reset payments" });
  await dialog.getByLabel("Reason").fill("Fix looks right; go again");
  await dialog.getByRole("button", { name: "Approve reset" }).click();
  await expect(dialog.getByRole("note")).toContainText("kept as a previous attempt");
  await dialog.getByRole("button", { name: "Yes, reset payments" }).click();
  await expect(dialog).toBeHidden();
  await expect(item).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: `${id}: payments is now pending` })).toBeVisible();

  const row = ledger.prepare("SELECT status, reset_count, failures FROM tasks WHERE session_id = ? AND key = 'payments'").get(id) as {
    status: string;
    reset_count: number;
    failures: string | null;
  };
  expect(row).toEqual({ status: "pending", reset_count: 1, failures: null });

  await page.goto(`/sessions/${id}`);
  const task = page.getByTestId("column-pending").getByTestId("task-payments");
  await expect(task).toBeVisible();
  await task.getByText("Details and history").click();
  const previous = task.getByRole("region", { name: "Attempt 1" });
  await expect(previous).toContainText("(previous)");
  await expect(previous).toContainText("integration - duplicate charge on retry");
  await expect(previous).toContainText("Claim judged: developer_2");
  await expect(previous).toContainText("Reason: Fix looks right; go again");
});

test.describe("as a viewer", () => {
  test.use({ storageState: authFile("viewer") });

  test("a viewer sees the inbox but is offered no reset", async ({ page, ledger }) => {
    await page.goto("/approvals");
    await expect(page.getByRole("list").first().getByRole("article")).toHaveCount(Math.min(expectedInbox(ledger).length, PAGE_SIZE));
    await expect(page.getByRole("button", { name: "Approve reset" })).toHaveCount(0);
  });
});
