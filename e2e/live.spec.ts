/**
 * Live: another process (a local-mode `proofgate` CLI writing the same database file) changes the
 * ledger, and the open page follows without a reload. The page never polls (app/trpc/query-client.ts:
 * no refetch interval, no refetch on focus), so a change that shows without a navigation came over
 * the live stream. How soon it shows is a measurement (`npm run bench`), not something these time.
 */
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect as baseExpect, test } from "./fixtures";

// Each test drives the real CLI several times (a process each) besides the browser, on a shared
// machine: generous waits, which only stop a page that never follows.
test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

async function cli(agent: string, ...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB, "--agent-id", agent, "--quiet"]);
  expect(run.code, `proofgate ${args.join(" ")}\n${run.stderr}`).toBe(0);
}

test("a task claimed by a local-mode CLI shows as claimed on the open session page, without a reload", async ({ page }) => {
  const id = uniqueId("e2e-live");
  await cli("orchestrator", "create-session", id, "parallel", "Live e2e");
  await cli("orchestrator", "create-task-group", "group_live", id, "Live claim");
  await page.goto(`/sessions/${id}`);
  await expect(page.getByTestId("column-pending").getByTestId("task-group_live")).toBeVisible();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  const navigations: string[] = [];
  page.on("framenavigated", (frame) => frame === page.mainFrame() && navigations.push(frame.url()));

  await cli("developer_1", "claim", id, "group_live", "--evidence", "artifacts/live.txt");
  const claimed = page.getByTestId("column-claimed").getByTestId("task-group_live");
  await expect(claimed).toBeVisible();
  await expect(claimed).toContainText("developer_1");
  await expect(page.getByTestId("column-pending").getByTestId("task-group_live")).toHaveCount(0);
  expect(navigations, "the page was not reloaded").toEqual([]);
});

test("a write made after the page was rendered but before its live stream connected still shows, without a reload", async ({ page }) => {
  const id = uniqueId("e2e-live-gap");
  await cli("orchestrator", "create-session", id, "parallel", "Live gap e2e");
  await cli("orchestrator", "create-task-group", "group_gap", id, "Claimed in the gap");
  // Hold the page's stream back until the write is made: the window between the server's render
  // and the stream's connection, widened so the test can write in it.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/trpc/events.stream**", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`/sessions/${id}`);
  await expect(page.getByTestId("column-pending").getByTestId("task-group_gap")).toBeVisible();
  await cli("developer_1", "claim", id, "group_gap");
  release();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  await expect(page.getByTestId("column-claimed").getByTestId("task-group_gap")).toBeVisible();
});

test("the approval inbox count goes up when a task is blocked, without a reload", async ({ page, ledger }) => {
  const id = uniqueId("e2e-live");
  await cli("orchestrator", "create-session", id, "parallel", "Live inbox e2e");
  await cli("orchestrator", "create-task-group", "group_block", id, "Live block");
  await cli("developer_1", "claim", id, "group_block");
  await page.goto("/approvals");
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  const before = (ledger.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'blocked'").get() as { n: number }).n;
  const count = page.getByTestId("inbox-count");
  await expect(count).toHaveAttribute("data-blocked", String(before));
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");

  await cli("verifier_1", "block", id, "group_block", "--failures", '["smoke - login returns 500"]');
  await expect(count).toHaveAttribute("data-blocked", String(before + 1));
  await expect(count).toContainText(`${before + 1} blocked tasks waiting`);
  // Oldest first: with more blocked tasks than a page holds, the new one is on a later page. Each
  // page is waited for before looking again: a click while one loads finds the button "Loading…",
  // and once the last page is in there is no button left to click.
  const item = page.getByTestId(`approval-${id}-group_block`);
  const cards = page.getByRole("list").first().getByRole("article");
  const more = page.getByRole("button", { name: /^Load more/ });
  while ((await item.count()) === 0 && (await more.isVisible())) {
    const shown = await cards.count();
    await more.click();
    await expect(cards).not.toHaveCount(shown);
  }
  await expect(item).toContainText("smoke - login returns 500");
});
