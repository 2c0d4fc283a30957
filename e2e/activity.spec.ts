/**
 * The audit log (/activity): filters kept in the address, new events arriving at the top while it is
 * open (written by a local-mode CLI, another process), rows linking to what they are about, and the
 * CSV of every event the filters match.
 */
import fs from "node:fs";
import type { Page } from "@playwright/test";
import { E2E_DB } from "../playwright.config";
import { authFile } from "./users";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect as baseExpect, screenshot, test } from "./fixtures";

// Each test drives the real CLI (a process each) besides the browser, on a shared machine.
test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

async function cli(agent: string, ...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB, "--agent-id", agent, "--quiet"]);
  expect(run.code, `proofgate ${args.join(" ")}\n${run.stderr}`).toBe(0);
}

/** The event ids a row list shows, top to bottom. */
async function shownIds(page: Page): Promise<number[]> {
  return page.locator("tr[data-event-id]").evaluateAll((rows) => rows.map((row) => Number(row.getAttribute("data-event-id"))));
}

test("filters live in the address: they survive a reload, and the rows are the newest matching events @mobile", async ({ page, ledger }, testInfo) => {
  const { actor } = ledger.prepare("SELECT actor FROM events WHERE type = 'task.claimed' GROUP BY actor ORDER BY count(*) DESC LIMIT 1").get() as {
    actor: string;
  };
  await page.goto("/activity");
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  const filters = page.getByRole("search", { name: "Filter activity" });
  await expect(filters.getByLabel("Type")).toBeEnabled();
  await filters.getByLabel("Type").selectOption("task.claimed");
  await expect(page).toHaveURL(/\/activity\?type=task\.claimed$/);
  await filters.getByLabel("Actor").fill(actor);
  await filters.getByLabel("Actor").press("Enter");
  await expect(page).toHaveURL(new RegExp(`type=task\\.claimed&actor=${encodeURIComponent(actor)}`));

  const expected = (
    ledger.prepare("SELECT id FROM events WHERE type = 'task.claimed' AND actor = ? ORDER BY id DESC LIMIT 50").all(actor) as { id: number }[]
  ).map((r) => r.id);
  expect(expected.length).toBeGreaterThan(0);
  await expect.poll(() => shownIds(page)).toEqual(expected);

  await page.reload();
  await expect(filters.getByLabel("Type")).toHaveValue("task.claimed");
  await expect(filters.getByLabel("Actor")).toHaveValue(actor);
  await expect.poll(() => shownIds(page)).toEqual(expected);
  for (const type of await page.locator("tr[data-event-id]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-event-type"))))
    expect(type).toBe("task.claimed");
  await screenshot(page, "activity-filtered", testInfo.project.name);
});

test("a write made through the CLI appears at the top of the open first page, without a reload", async ({ page }, testInfo) => {
  const id = uniqueId("e2e-activity");
  await cli("orchestrator", "create-session", id, "parallel", "Activity live e2e");
  await page.goto(`/activity?session=${id}`);
  await expect(page.locator("tr[data-event-id]")).toHaveCount(1);
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  const navigations: string[] = [];
  page.on("framenavigated", (frame) => frame === page.mainFrame() && navigations.push(frame.url()));

  await cli("orchestrator", "create-task-group", "group_audit", id, "Audited task");
  const top = page.locator("tr[data-event-id]").first();
  await expect(top).toContainText("orchestrator created task group_audit", { timeout: 5_000 });
  await expect(top).toContainText("new");
  await expect(page.locator("tr[data-event-id]")).toHaveCount(2);
  expect(navigations, "the page was not reloaded").toEqual([]);
  await screenshot(page, "activity-live", testInfo.project.name);
});

test("a task's event links to the task on its session's page", async ({ page }) => {
  const id = uniqueId("e2e-activity");
  await cli("orchestrator", "create-session", id, "parallel", "Activity link e2e");
  await cli("orchestrator", "create-task-group", "group_link", id, "Linked task");
  await cli("developer_1", "claim", id, "group_link");
  await page.goto(`/activity?session=${id}&type=task.claimed`);
  const row = page.locator("tr[data-event-id]").first();
  await expect(row).toContainText("developer_1 claimed task group_link as done");
  await row.getByRole("link", { name: `task group_link in ${id}` }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${id}#task-group_link$`));
  await expect(page.locator("#task-group_link")).toBeInViewport();
  await expect(page.getByTestId("column-claimed").getByTestId("task-group_link")).toBeVisible();
});

test("the CSV holds every event the filters match, not just the page", async ({ page, ledger }) => {
  // A type with more events than one page holds.
  const { type } = ledger.prepare("SELECT type FROM events GROUP BY type HAVING count(*) > 50 ORDER BY count(*) LIMIT 1").get() as { type: string };
  const expected = (ledger.prepare("SELECT id FROM events WHERE type = ? ORDER BY id DESC").all(type) as { id: number }[]).map((r) => String(r.id));
  await page.goto(`/activity?type=${type}`);
  await expect(page.locator("tr[data-event-id]")).toHaveCount(50);
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download CSV of the filtered events" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`proofgate-activity-${type.replace(/[^a-z0-9]+/g, "-")}.csv`);
  const csv = fs.readFileSync((await download.path())!, "utf8");
  const records = csv
    .replace(/^\uFEFF/, "")
    .trimEnd()
    .split("\r\n");
  expect(records[0]).toBe("id,at,type,session,source,entity,entity_id,actor,principal,role,via,summary,data");
  // Every record starts with its id and type (summaries and data may hold commas, quoted).
  expect(records.slice(1).map((r) => r.split(",")[0])).toEqual(expected);
  expect(records.slice(1).every((r) => r.split(",")[2] === type)).toBe(true);
});

test("the CSV of every event streams past one page of the service (1,000 events) with nothing missed or repeated", async ({ page, ledger }) => {
  const expected = (ledger.prepare("SELECT id FROM events ORDER BY id DESC").all() as { id: number }[]).map((r) => String(r.id));
  expect(expected.length).toBeGreaterThan(2000);
  const response = await page.request.get("/api/activity/csv");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-disposition"]).toBe('attachment; filename="proofgate-activity.csv"');
  const ids = (await response.text())
    .trimEnd()
    .split("\r\n")
    .slice(1)
    .map((r) => r.split(",")[0]);
  expect(ids).toEqual(expected);
});

test("the CSV refuses a bad filter, naming it", async ({ page }) => {
  const response = await page.request.get("/api/activity/csv?source=cron&from=yesterday");
  expect(response.status()).toBe(400);
  expect(await response.text()).toBe(
    'source: must be one of api, demo, bazinga, shots-on-goal (got "cron")\nfrom: must be a date as YYYY-MM-DD (got "yesterday")\n',
  );
});

test.describe("signed out", () => {
  test.use({ storageState: { cookies: [], origins: [] } });
  test("the CSV is refused", async ({ request }) => {
    const response = await request.get("/api/activity/csv");
    expect(response.status()).toBe(401);
    expect(await response.text()).toMatch(/^auth\.required: /);
  });
});

test("no match: says so, and the reset link brings every event back", async ({ page }, testInfo) => {
  await page.goto("/activity?actor=nobody-acted-as-this");
  await expect(page.getByText("No events match these filters.")).toBeVisible();
  await screenshot(page, "activity-empty", testInfo.project.name);
  await page.getByRole("main").getByRole("link", { name: "Reset filters" }).first().click();
  await expect(page).toHaveURL(/\/activity$/);
  await expect(page.locator("tr[data-event-id]")).toHaveCount(50);
  await expect(page.getByRole("search", { name: "Filter activity" }).getByLabel("Actor")).toHaveValue("");
});

test("the header links to the audit log", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Activity" }).click();
  await expect(page).toHaveURL(/\/activity$/);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Activity" })).toHaveAttribute("aria-current", "page");
});

test.describe("as a viewer", () => {
  test.use({ storageState: authFile("viewer") });
  test("reads the log", async ({ page }) => {
    await page.goto("/activity");
    await expect(page.locator("tr[data-event-id]")).toHaveCount(50);
  });
});

test.describe("before the page's scripts have run", () => {
  test.use({ javaScriptEnabled: false, expectedConsoleErrors: /^request failed: .*\/_next\/static\/chunks\// });
  test("the filters are disabled, so a change cannot be lost", async ({ page }) => {
    await page.goto("/activity");
    await expect(page.locator("tr[data-event-id]").first()).toBeVisible();
    await expect(page.getByRole("search", { name: "Filter activity" }).getByLabel("Type")).toBeDisabled();
  });
});
