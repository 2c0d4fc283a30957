/**
 * The faster inbox (issue 20, item 4): filters kept in the address, several tasks decided at once
 * with one reason (a refused one named), the keyboard path, and what a viewer is (not) offered.
 * Each test makes its own session through the real CLI and filters the inbox to it, so the demo
 * data around it does not matter.
 */
import type { Page } from "@playwright/test";
import { PAGE_SIZE } from "../app/(dashboard)/approvals/inbox-view";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect as baseExpect, hydrated, screenshot, test } from "./fixtures";
import { authFile } from "./users";

test.describe.configure({ timeout: 120_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

async function cli(agent: string, ...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB, "--agent-id", agent, "--quiet"]);
  expect(run.code, `proofgate ${args.join(" ")}\n${run.stderr}`).toBe(0);
}

/** A session with the given tasks blocked (by the verifier named), some with a reset requested. */
async function blockedSession(prefix: string, tasks: { key: string; blocker: string; request?: boolean }[]): Promise<string> {
  const id = uniqueId(prefix);
  await cli("orchestrator", "create-session", id, "parallel", `Inbox e2e: ${prefix}`);
  for (const { key, blocker, request } of tasks) {
    await cli("orchestrator", "create-task-group", key, id, `Work on ${key}`);
    await cli("developer_1", "claim", id, key, "--evidence", `artifacts/${key}.txt`);
    await cli(blocker, "block", id, key, "--failures", JSON.stringify([`${key}: unit tests fail`]));
    if (request) await cli("orchestrator", "request-reset", id, key, "--reason", `${key} fixed`);
  }
  return id;
}

const cards = (page: Page) => page.getByRole("region", { name: "Blocked tasks" }).getByRole("article");
const cardKeys = (page: Page, id: string) =>
  cards(page).evaluateAll((els, prefix) => els.map((el) => el.getAttribute("data-testid")!.slice(prefix.length)), `approval-${id}-`);

test("filters live in the address: a reload keeps them, Back undoes one, a bad one is named @mobile", async ({ page }, testInfo) => {
  const id = await blockedSession("inbox-filters", [
    { key: "alpha", blocker: "verifier_1", request: true },
    { key: "beta", blocker: "verifier_2" },
    { key: "gamma", blocker: "verifier_1" },
  ]);
  await page.goto(`/approvals?session=${id}`);
  const filters = page.getByRole("search", { name: "Filter the inbox" });
  await expect(filters.getByLabel("Session")).toHaveValue(id);
  await expect(cards(page)).toHaveCount(3);
  expect(await cardKeys(page, id)).toEqual(["alpha", "beta", "gamma"]);

  await filters.getByLabel("Reset").selectOption("none");
  await expect(page).toHaveURL(new RegExp(`/approvals\\?session=${id}&reset=none$`));
  await expect(cards(page)).toHaveCount(2);

  await filters.getByLabel("Blocked by").fill("verifier_2");
  await filters.getByLabel("Blocked by").press("Enter");
  await expect(page).toHaveURL(new RegExp(`reset=none&blockedBy=verifier_2$`));
  await expect(cards(page)).toHaveCount(1);
  expect(await cardKeys(page, id)).toEqual(["beta"]);
  await expect(page.getByTestId("inbox-count")).toHaveText("1 blocked task matches · 0 with a reset request");

  await page.reload();
  await expect(filters.getByLabel("Reset")).toHaveValue("none");
  await expect(filters.getByLabel("Blocked by")).toHaveValue("verifier_2");
  expect(await cardKeys(page, id)).toEqual(["beta"]);
  await page.mouse.move(0, 0);
  await screenshot(page, "inbox-filtered", testInfo.project.name);

  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`session=${id}&reset=none$`));
  await expect(cards(page)).toHaveCount(2);
  await expect(filters.getByLabel("Blocked by")).toHaveValue("");

  await filters.getByLabel("Waiting at least").selectOption("7d");
  await expect(page).toHaveURL(/age=7d/);
  await expect(page.getByText("No blocked task matches these filters")).toBeVisible();

  await page.goto(`/approvals?session=${id}&age=forever&source=cron`);
  const alert = page.getByRole("alert").filter({ hasText: "Some of the address was ignored" });
  await expect(alert).toContainText('age: must be one of 1h, 4h, 1d, 3d, 7d (got "forever")');
  await expect(alert).toContainText('source: must be one of api, demo, bazinga, shots-on-goal (got "cron")');
  await expect(cards(page)).toHaveCount(3);
});

test("bulk approve: one reason for every selected task, each its own move, the one moved meanwhile refused and named", async ({ page, ledger }, testInfo) => {
  const id = await blockedSession("inbox-bulk", [
    { key: "one", blocker: "verifier_1", request: true },
    { key: "two", blocker: "verifier_1" },
    { key: "three", blocker: "verifier_2", request: true },
  ]);
  await page.goto(`/approvals?session=${id}`);
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  await expect(cards(page)).toHaveCount(3);
  const toolbar = page.getByRole("toolbar", { name: "Decide several tasks" });
  await toolbar.getByLabel("Select all 3 shown").check();
  await expect(toolbar.getByTestId("selected-count")).toHaveText("3 selected");
  await expect(page.getByLabel(`Select two (${id})`)).toBeChecked();

  await toolbar.getByRole("button", { name: "Approve selected" }).click();
  const dialog = page.getByRole("dialog", { name: "Approve resets: 3 tasks" });
  await dialog.getByLabel("Reason").fill("Root cause fixed in the shared fixtures");
  await dialog.getByRole("button", { name: "Approve resets" }).click();
  await expect(dialog.getByRole("note")).toContainText("A task that cannot be decided (moved since, or no request to decline) is refused and named");
  // While the lead confirms, an agent asks for a reset of "two": the version the lead saw is gone.
  await cli("orchestrator", "request-reset", id, "two", "--reason", "retry please");
  await dialog.getByRole("button", { name: "Yes, approve resets of 3 tasks" }).click();

  await expect(dialog.getByTestId("bulk-summary")).toHaveText("2 of 3 tasks approved; 1 refused");
  await expect(dialog.getByTestId(`bulk-result-${id}-one`)).toHaveAttribute("data-outcome", "applied");
  await expect(dialog.getByTestId(`bulk-result-${id}-one`)).toContainText("approved, now pending");
  await expect(dialog.getByTestId(`bulk-result-${id}-three`)).toHaveAttribute("data-outcome", "applied");
  const refused = dialog.getByTestId(`bulk-result-${id}-two`);
  await expect(refused).toHaveAttribute("data-outcome", "refused");
  await expect(refused).toContainText(/refused — task two changed since version \d+ \(now \d+, blocked\): reload and retry \[task\.version_conflict\]/);
  await page.mouse.move(0, 0);
  await screenshot(page, "inbox-bulk-result", testInfo.project.name);
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(page.getByRole("status").filter({ hasText: "2 of 3 tasks approved, 1 refused" })).toBeVisible();
  await expect(cards(page)).toHaveCount(1);

  const moves = ledger
    .prepare(
      `SELECT t.key, t.status, tt.reason FROM tasks t LEFT JOIN task_transitions tt ON tt.task_id = t.id AND tt.move = 'approve_reset'
       WHERE t.session_id = ? ORDER BY t.key`,
    )
    .all(id);
  expect(moves).toEqual([
    { key: "one", status: "pending", reason: "Root cause fixed in the shared fixtures" },
    { key: "three", status: "pending", reason: "Root cause fixed in the shared fixtures" },
    { key: "two", status: "blocked", reason: null },
  ]);
  expect(ledger.prepare("SELECT count(*) AS n FROM events WHERE session_id = ? AND type = 'task.reset_approved'").get(id)).toEqual({ n: 2 });
});

test("the keyboard path: j / k move between tasks, x selects, d and a open the decisions, never while typing", async ({ page, ledger }, testInfo) => {
  const id = await blockedSession("inbox-keys", [
    { key: "first", blocker: "verifier_1", request: true },
    { key: "second", blocker: "verifier_1", request: true },
  ]);
  await page.goto(`/approvals?session=${id}`);
  await expect(cards(page)).toHaveCount(2);
  const shortcuts = page.getByRole("region", { name: "Keyboard shortcuts" });
  for (const [key, does] of [
    ["j", "next task"],
    ["k", "previous task"],
    ["x", "select or unselect the task"],
    ["a", "approve the reset"],
    ["d", "decline the reset request"],
  ])
    await expect(shortcuts).toContainText(`${key}${does}`);

  // Typing in a filter is typing, not a shortcut.
  const session = page.getByRole("search").getByLabel("Session");
  await hydrated(page);
  await session.press("End");
  await session.press("j");
  await expect(session).toHaveValue(`${id}j`);
  await session.fill(id);
  await page.locator("body").click({ position: { x: 1, y: 1 } });

  const first = page.getByTestId(`approval-${id}-first`);
  const second = page.getByTestId(`approval-${id}-second`);
  await page.keyboard.press("j");
  await expect(first).toBeFocused();
  await page.keyboard.press("j");
  await expect(second).toBeFocused();
  await page.keyboard.press("k");
  await expect(first).toBeFocused();
  await page.keyboard.press("x");
  await expect(page.getByLabel(`Select first (${id})`)).toBeChecked();
  await expect(page.getByTestId("selected-count")).toHaveText("1 selected");
  await page.keyboard.press("x");
  await expect(page.getByLabel(`Select first (${id})`)).not.toBeChecked();
  await page.mouse.move(0, 0);
  await screenshot(page, "inbox-keyboard", testInfo.project.name);

  await page.keyboard.press("d");
  const decline = page.getByRole("dialog", { name: "Decline reset first" });
  // "a" and "d" typed into the reason are the reason's letters, not shortcuts.
  await decline.getByLabel("Reason").fill("");
  await decline.getByLabel("Reason").pressSequentially("add a regression test");
  await expect(decline.getByLabel("Reason")).toHaveValue("add a regression test");
  await decline.getByRole("button", { name: "Decline reset" }).click();
  await decline.getByRole("button", { name: "Yes, decline for first" }).click();
  await expect(decline).toBeHidden();
  await expect(first).not.toContainText("Reset requested by");

  // Focus returns to the task the dialog was about; without its request it now comes after "second".
  await expect(first).toBeFocused();
  expect(await cardKeys(page, id)).toEqual(["second", "first"]);
  await page.keyboard.press("k");
  await expect(second).toBeFocused();
  await page.keyboard.press("a");
  const approve = page.getByRole("dialog", { name: "Approve reset second" });
  await approve.getByLabel("Reason").fill("fixed");
  await approve.getByRole("button", { name: "Approve reset" }).click();
  await approve.getByRole("button", { name: "Yes, reset second" }).click();
  await expect(approve).toBeHidden();
  await expect(second).toHaveCount(0);

  const rows = ledger.prepare("SELECT key, status, reset_requested AS requested FROM tasks WHERE session_id = ? ORDER BY key").all(id);
  expect(rows).toEqual([
    { key: "first", status: "blocked", requested: 0 },
    { key: "second", status: "pending", requested: 0 },
  ]);
});

test.describe("as a viewer", () => {
  // The refusals the test forces on purpose.
  test.use({ storageState: authFile("viewer"), expectedConsoleErrors: /status of 403 \(Forbidden\) \(.*\/api\/trpc\/task\.(approve|decline)Resets\)/ });

  test("a viewer filters and moves through the inbox but is offered no decision, and the server refuses one forced", async ({ page, ledger }) => {
    const id = await blockedSession("inbox-viewer", [{ key: "only", blocker: "verifier_1", request: true }]);
    await page.goto(`/approvals?session=${id}`);
    await expect(cards(page)).toHaveCount(1);
    await expect(page.getByRole("toolbar", { name: "Decide several tasks" })).toHaveCount(0);
    await expect(page.getByRole("checkbox")).toHaveCount(0);
    const shortcuts = page.getByRole("region", { name: "Keyboard shortcuts" });
    await expect(shortcuts).toContainText("next task");
    await expect(shortcuts).not.toContainText("approve");
    // Everything above is in the server's HTML: the shortcut listens once the page is hydrated.
    await hydrated(page);
    await page.keyboard.press("j");
    await expect(page.getByTestId(`approval-${id}-only`)).toBeFocused();
    await page.keyboard.press("a");
    await page.keyboard.press("d");
    await expect(page.getByRole("dialog")).toHaveCount(0);

    const before = ledger.prepare("SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM task_transitions) AS moves").get();
    for (const [procedure, rule] of [
      ["task.approveResets", "task.approve_reset_role"],
      ["task.declineResets", "task.decline_reset_role"],
    ]) {
      const answer = await page.evaluate(
        async ({ procedure, input }) => {
          const response = await fetch(`/api/trpc/${procedure}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ json: input }),
          });
          return { status: response.status, body: (await response.json()) as { error?: { json?: { data?: { rule?: string } } } } };
        },
        { procedure, input: { tasks: [{ sessionId: id, key: "only" }], reason: "forced" } },
      );
      expect(answer.status, procedure).toBe(403);
      expect(answer.body.error?.json?.data?.rule, procedure).toBe(rule);
    }
    expect(ledger.prepare("SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM task_transitions) AS moves").get()).toEqual(before);
  });

  test(`the first page holds ${PAGE_SIZE} tasks`, async ({ page, ledger }) => {
    const blocked = (ledger.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'blocked'").get() as { n: number }).n;
    await page.goto("/approvals");
    await expect(cards(page)).toHaveCount(Math.min(blocked, PAGE_SIZE));
  });
});
