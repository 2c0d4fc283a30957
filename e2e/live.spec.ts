/**
 * Live: another process (a local-mode `proofgate` CLI writing the same database file) changes the
 * ledger, and the open page follows without a reload, within 2 s of the command's exit.
 */
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect as baseExpect, test } from "./fixtures";

// Each test drives the real CLI several times (a process each) besides the browser, on a shared
// machine: generous waits, except where a test states its own limit (the live 2 s).
test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

async function cli(agent: string, ...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB, "--agent-id", agent, "--quiet"]);
  expect(run.code, `proofgate ${args.join(" ")}\n${run.stderr}`).toBe(0);
}

test("a task claimed by a local-mode CLI shows as claimed on the open session page within 2 s, without a reload", async ({ page }, testInfo) => {
  const id = uniqueId("e2e-live");
  await cli("orchestrator", "create-session", id, "parallel", "Live e2e");
  await cli("orchestrator", "create-task-group", "group_live", id, "Live claim");
  await page.goto(`/sessions/${id}`);
  await expect(page.getByTestId("column-pending").getByTestId("task-group_live")).toBeVisible();
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  const navigations: string[] = [];
  page.on("framenavigated", (frame) => frame === page.mainFrame() && navigations.push(frame.url()));

  await cli("developer_1", "claim", id, "group_live", "--evidence", "artifacts/live.txt");
  const claimedAt = Date.now();
  const claimed = page.getByTestId("column-claimed").getByTestId("task-group_live");
  await expect(claimed).toBeVisible({ timeout: 2_000 });
  const ms = Date.now() - claimedAt;
  await expect(claimed).toContainText("developer_1");
  await expect(page.getByTestId("column-pending").getByTestId("task-group_live")).toHaveCount(0);
  expect(navigations, "the page was not reloaded").toEqual([]);
  testInfo.annotations.push({ type: "claim shown after", description: `${ms} ms` });
  console.log(`[${testInfo.project.name}] claim shown ${ms} ms after the CLI exited`);
});

test("the approval inbox count goes up when a task is blocked, without a reload", async ({ page, ledger }, testInfo) => {
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
  const blockedAt = Date.now();
  await expect(count).toHaveAttribute("data-blocked", String(before + 1), { timeout: 2_000 });
  const ms = Date.now() - blockedAt;
  await expect(count).toContainText(`${before + 1} blocked tasks waiting`);
  // Oldest first: with more blocked tasks than a page holds, the new one is on a later page.
  const item = page.getByTestId(`approval-${id}-group_block`);
  const more = page.getByRole("button", { name: /^Load more/ });
  while ((await item.count()) === 0 && (await more.count()) > 0) await more.click();
  await expect(item).toContainText("smoke - login returns 500");
  testInfo.annotations.push({ type: "inbox count updated after", description: `${ms} ms` });
  console.log(`[${testInfo.project.name}] inbox count updated ${ms} ms after the CLI exited`);
});
