import type Database from "better-sqlite3";
import type { Page } from "@playwright/test";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect, screenshot, test } from "./fixtures";

const PAGE_SIZE = 25;
const NEWEST_FIRST = "ORDER BY started_at DESC, id DESC";

/** Session ids from the ledger in the page's order, computed from the rows themselves (not the rollups the page reads). */
function ledgerIds(ledger: Database.Database, where = "1", ...params: unknown[]): string[] {
  return (ledger.prepare(`SELECT id FROM sessions s WHERE ${where} ${NEWEST_FIRST}`).all(...params) as { id: string }[]).map((row) => row.id);
}
const HAS_BLOCKED = "EXISTS (SELECT 1 FROM tasks t WHERE t.session_id = s.id AND t.status = 'blocked')";

/** The session ids the table shows, top to bottom. */
function shownIds(page: Page): Promise<string[]> {
  return page
    .getByRole("table", { name: /^Sessions/ })
    .getByRole("link")
    .allTextContents();
}

/** At phone width the filters fold behind one button; open it if it is there and closed. */
async function showFilters(page: Page) {
  const toggle = page.getByRole("button", { name: /^Filters and sort/ });
  if ((await toggle.isVisible()) && (await toggle.getAttribute("aria-expanded")) === "false") await toggle.click();
}

async function cli(...args: string[]) {
  const run = await proofgate([...args, "--db", E2E_DB]);
  expect(run.code, `proofgate ${args.join(" ")}: ${run.stderr}`).toBe(0);
}

test("the table lists the newest sessions with their state and flags @mobile", async ({ page, ledger }, testInfo) => {
  await page.goto("/sessions");
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
  const expected = ledgerIds(ledger).slice(0, PAGE_SIZE);
  await expect.poll(() => shownIds(page)).toEqual(expected);

  // Pick a session with blocked tasks and check its row against its task rows.
  const [flagged] = ledgerIds(ledger, `${HAS_BLOCKED} AND id IN (${expected.map(() => "?").join(",")})`, ...expected);
  if (flagged) {
    const t = ledger
      .prepare("SELECT count(*) AS total, sum(status = 'completed') AS done, sum(status = 'blocked') AS blocked FROM tasks WHERE session_id = ?")
      .get(flagged) as { total: number; done: number; blocked: number };
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: flagged, exact: true }) });
    await expect(row.getByRole("progressbar", { name: `Tasks completed in ${flagged}` })).toHaveAttribute("aria-valuenow", String(t.done));
    await expect(row.getByRole("progressbar", { name: `Tasks completed in ${flagged}` })).toHaveAttribute("aria-valuemax", String(t.total));
    await expect(row).toContainText(`${t.blocked} blocked`);
    const s = ledger.prepare("SELECT status, requirements FROM sessions WHERE id = ?").get(flagged) as { status: string; requirements: string };
    await expect(row).toContainText(s.status);
    await expect(row).toContainText(s.requirements.slice(0, 30));
  }
  await screenshot(page, "sessions", testInfo.project.name);

  // At phone width the filters fold behind one button, so the rows start on the first screen.
  const toggle = page.getByRole("button", { name: /^Filters and sort/ });
  if (testInfo.project.name === "phone") {
    await expect(page.getByLabel("Status")).toBeHidden();
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByLabel("Status")).toBeVisible();
  } else {
    await expect(toggle).toBeHidden();
    await expect(page.getByLabel("Status")).toBeVisible();
  }

  // The id opens the session's own page; Back returns to the list.
  const opened = flagged ?? expected[0]!;
  await page.getByRole("link", { name: opened, exact: true }).click();
  await expect(page).toHaveURL(`/sessions/${opened}`);
  await expect(page.getByRole("heading", { name: opened, level: 1 })).toBeVisible();
  await page.goBack();
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
  await expect.poll(() => shownIds(page)).toEqual(expected);
});

test("status, blocked, source and sort filters change the rows to what the ledger holds", async ({ page, ledger }) => {
  await page.goto("/sessions");
  await showFilters(page);
  await page.getByLabel("Status").selectOption("failed");
  await expect(page).toHaveURL(/[?&]status=failed\b/);
  await expect.poll(() => shownIds(page)).toEqual(ledgerIds(ledger, "status = 'failed'").slice(0, PAGE_SIZE));

  await page.getByLabel("Has blocked tasks").check();
  await expect(page).toHaveURL(/[?&]blocked=1\b/);
  const failedBlocked = ledgerIds(ledger, `status = 'failed' AND ${HAS_BLOCKED}`);
  expect(failedBlocked.length, "the seed has failed sessions with blocked tasks").toBeGreaterThan(0);
  await expect.poll(() => shownIds(page)).toEqual(failedBlocked.slice(0, PAGE_SIZE));

  await page.getByLabel("Source").selectOption("demo");
  await expect.poll(() => shownIds(page)).toEqual(ledgerIds(ledger, `status = 'failed' AND ${HAS_BLOCKED} AND source = 'demo'`).slice(0, PAGE_SIZE));

  await page.getByLabel("Sort").selectOption("oldest");
  await expect(page).toHaveURL(/[?&]order=oldest\b/);
  await expect.poll(() => shownIds(page)).toEqual(ledgerIds(ledger, `status = 'failed' AND ${HAS_BLOCKED} AND source = 'demo'`).reverse().slice(0, PAGE_SIZE));

  // A date range: the days of the 5th and 10th newest sessions, inclusive, in UTC.
  await page.getByRole("link", { name: "Clear filters" }).first().click();
  await expect(page).toHaveURL(/\/sessions\?order=oldest$/);
  await page.getByLabel("Sort").selectOption("newest");
  const days = (
    ledger.prepare(`SELECT strftime('%Y-%m-%d', started_at / 1000, 'unixepoch') AS day FROM sessions ${NEWEST_FIRST} LIMIT 10`).all() as { day: string }[]
  ).map((r) => r.day);
  const [to, from] = [days[4]!, days[9]!];
  await page.getByLabel("Started from").fill(from);
  await expect(page).toHaveURL(new RegExp(`[?&]from=${from}`));
  await page.getByLabel("Started to").fill(to);
  await expect(page).toHaveURL(new RegExp(`[?&]to=${to}`));
  const inRange = ledgerIds(ledger, "started_at >= ? AND started_at <= ?", Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T23:59:59.999Z`));
  expect(inRange.length).toBeGreaterThanOrEqual(6);
  await expect.poll(() => shownIds(page)).toEqual(inRange.slice(0, PAGE_SIZE));
});

test("the address keeps the view: a reload shows the same rows and Back undoes a filter", async ({ page, ledger }) => {
  await page.goto("/sessions");
  await showFilters(page);
  await page.getByLabel("Status").selectOption("completed");
  await expect(page).toHaveURL(/status=completed/);
  await page.getByLabel("Sort").selectOption("oldest");
  await expect(page).toHaveURL(/status=completed&order=oldest$/);
  const expected = ledgerIds(ledger, "status = 'completed'").reverse().slice(0, PAGE_SIZE);
  await expect.poll(() => shownIds(page)).toEqual(expected);

  await page.reload();
  await expect(page.getByLabel("Status")).toHaveValue("completed");
  await expect(page.getByLabel("Sort")).toHaveValue("oldest");
  await expect.poll(() => shownIds(page)).toEqual(expected);

  await page.goBack();
  await expect(page).toHaveURL(/\/sessions\?status=completed$/);
  await expect(page.getByLabel("Sort")).toHaveValue("newest");
  await expect.poll(() => shownIds(page)).toEqual(ledgerIds(ledger, "status = 'completed'").slice(0, PAGE_SIZE));
  await page.goBack();
  await expect(page.getByLabel("Status")).toHaveValue("");
  await expect.poll(() => shownIds(page)).toEqual(ledgerIds(ledger).slice(0, PAGE_SIZE));
});

test("Next page walks every session once, in order, and each page has its own address", async ({ page, ledger }) => {
  const all = ledgerIds(ledger);
  expect(all.length, "the seed fills more than one page").toBeGreaterThan(PAGE_SIZE);
  await page.goto("/sessions");
  const seen: string[] = [];
  const pages: string[] = [];
  for (let n = 1; ; n++) {
    await expect(page.getByRole("navigation", { name: "Pages" })).toContainText(`Page ${n}`);
    const ids = await shownIds(page);
    expect(ids.length).toBeLessThanOrEqual(PAGE_SIZE);
    seen.push(...ids);
    pages.push(page.url());
    const next = page.getByRole("link", { name: "Next page" });
    if ((await next.count()) === 0) break;
    await next.click();
    await expect(page).toHaveURL(new RegExp(`[?&]after=[\\w-]+&page=${n + 1}$`));
  }
  expect(new Set(seen).size, "no session shown twice").toBe(seen.length);
  expect(seen).toEqual(all);

  // The second page's address, opened fresh, shows the same rows; First page goes back to the start.
  await page.goto(pages[1]!);
  await expect.poll(() => shownIds(page)).toEqual(all.slice(PAGE_SIZE, 2 * PAGE_SIZE));
  await page.getByRole("link", { name: "First page" }).click();
  await expect(page).toHaveURL(/\/sessions$/);
  await expect.poll(() => shownIds(page)).toEqual(all.slice(0, PAGE_SIZE));
});

test("search finds a session by a fragment of its id, and says so when nothing matches", async ({ page, ledger }) => {
  const all = ledger.prepare(`SELECT id, requirements FROM sessions ${NEWEST_FIRST}`).all() as { id: string; requirements: string | null }[];
  const target = all[Math.min(30, all.length - 1)]!.id;
  const fragment = target.slice(-4);
  const matching = all.filter((s) => `${s.id}\n${s.requirements ?? ""}`.toLowerCase().includes(fragment.toLowerCase())).map((s) => s.id);

  await page.goto("/sessions");
  await page.getByLabel("Search").fill(fragment);
  await page.getByLabel("Search").press("Enter");
  await expect(page).toHaveURL(new RegExp(`[?&]q=${fragment}$`));
  await expect.poll(() => shownIds(page)).toEqual(matching.slice(0, PAGE_SIZE));
  expect(matching).toContain(target);

  await page.getByLabel("Search").fill("zz-no-such-session-zz");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByText("No sessions match these filters.")).toBeVisible();
  await expect(page.getByRole("table")).toHaveCount(0);
  await page.getByRole("link", { name: "Clear filters" }).last().click();
  await expect(page).toHaveURL(/\/sessions$/);
  await expect(page.getByLabel("Search")).toHaveValue("");
  await expect.poll(() => shownIds(page)).toEqual(all.slice(0, PAGE_SIZE).map((s) => s.id));
});

test("a filter the address gets wrong is named, with its rule, and left out", async ({ page, ledger }) => {
  await page.goto("/sessions?status=done&from=2026-13-01&after=bogus");
  const alert = page.getByRole("alert").filter({ hasText: "Some of the address was ignored" });
  await expect(alert).toContainText('status: must be one of active, completed, failed (got "done")');
  await expect(alert).toContainText('from: must be a date as YYYY-MM-DD (got "2026-13-01")');
  await expect(alert).toContainText("after: is not a cursor this list returned; showing the first page");
  await expect.poll(() => shownIds(page)).toEqual(ledgerIds(ledger).slice(0, PAGE_SIZE));
});

test("live: a row's progress and flags follow a local-mode CLI moving the session's tasks, without a reload", async ({ page }) => {
  // Each CLI call is its own process; on a busy machine the setup alone takes seconds.
  test.setTimeout(120_000);
  const id = uniqueId("e2e-live-row");
  await cli("create-session", id, "simple", "Live progress from the command line", "--agent-id", "orchestrator");
  await cli("create-task-group", "done_one", id, "A task that gets completed", "--agent-id", "orchestrator");
  await cli("create-task-group", "refused_one", id, "A task whose claim is refused", "--agent-id", "orchestrator");
  await cli("save-success-criteria", id, '["Live bar moves"]', "--agent-id", "orchestrator");

  await page.goto(`/sessions?q=${id}`);
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: id, exact: true }) });
  const tasks = row.getByRole("progressbar", { name: `Tasks completed in ${id}` });
  const criteria = row.getByRole("progressbar", { name: `Required criteria met in ${id}` });
  await expect(tasks).toHaveAttribute("aria-valuenow", "0");
  await expect(tasks).toHaveAttribute("aria-valuemax", "2");
  await expect(criteria).toHaveAttribute("aria-valuenow", "0");
  await expect(row).not.toContainText("blocked");
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  const loads: string[] = [];
  page.on("framenavigated", (frame) => frame === page.mainFrame() && loads.push(frame.url()));

  await cli("claim", id, "done_one", "--evidence", "out.txt", "--agent-id", "developer_1");
  await cli("verify", id, "done_one", "--check", "tests=pass", "--agent-id", "verifier_1");
  await cli("complete", id, "done_one", "--agent-id", "orchestrator");
  await expect(tasks).toHaveAttribute("aria-valuenow", "1");

  await cli("claim", id, "refused_one", "--agent-id", "developer_1");
  await cli("block", id, "refused_one", "--failures", '["tests fail"]', "--agent-id", "verifier_1");
  await expect(row).toContainText("1 blocked");

  await cli("update-success-criterion", id, "Live bar moves", "--status", "met", "--agent-id", "project_manager");
  await expect(criteria).toHaveAttribute("aria-valuenow", "1");
  expect(loads, "the page was not reloaded").toEqual([]);
});
