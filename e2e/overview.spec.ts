import type Database from "better-sqlite3";
import type { Page } from "@playwright/test";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect, screenshot, test } from "./fixtures";

const TASK_STATES = ["pending", "in_progress", "claimed", "verified", "blocked", "completed"] as const;

/** A session's progress recomputed from its task and criteria rows (not from the rollups the page reads). */
function progressOf(ledger: Database.Database, id: string) {
  const tasks = ledger.prepare("SELECT count(*) AS total, coalesce(sum(status = 'completed'), 0) AS done FROM tasks WHERE session_id = ?").get(id) as {
    total: number;
    done: number;
  };
  const criteria = ledger
    .prepare(
      "SELECT coalesce(sum(required_for_completion), 0) AS required, coalesce(sum(required_for_completion AND coalesce(verifier_status, status) = 'met'), 0) AS met FROM success_criteria WHERE session_id = ?",
    )
    .get(id) as { required: number; met: number };
  return { tasks, criteria };
}

/** The ledger's figures, counted from the rows themselves. */
function figures(ledger: Database.Database) {
  const sessions = ledger.prepare("SELECT status, count(*) AS n FROM sessions GROUP BY status").all() as { status: string; n: number }[];
  const tasks = ledger.prepare("SELECT status, count(*) AS n FROM tasks GROUP BY status").all() as { status: string; n: number }[];
  const inbox = ledger.prepare("SELECT count(*) AS blocked, coalesce(sum(reset_requested), 0) AS resetRequested FROM tasks WHERE status = 'blocked'").get() as {
    blocked: number;
    resetRequested: number;
  };
  const unverified = (ledger.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'completed' AND verification = 'none'").get() as { n: number }).n;
  const n = (rows: { status: string; n: number }[], status: string) => rows.find((row) => row.status === status)?.n ?? 0;
  return {
    sessions: {
      total: sessions.reduce((sum, row) => sum + row.n, 0),
      active: n(sessions, "active"),
      completed: n(sessions, "completed"),
      failed: n(sessions, "failed"),
    },
    tasks: {
      total: tasks.reduce((sum, row) => sum + row.n, 0),
      unverified,
      ...Object.fromEntries(TASK_STATES.map((state) => [state, n(tasks, state)])),
    } as Record<string, number>,
    inbox,
  };
}

const liveTable = (page: Page) => page.getByRole("table", { name: "Active sessions, newest first" });

test("the overview's totals, tasks by state and inbox count are the ledger's", async ({ page, ledger }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
  const f = figures(ledger);

  for (const [key, value] of Object.entries(f.sessions))
    await expect(page.getByTestId(`total-${key === "total" ? "sessions" : key}`)).toHaveText(String(value));
  for (const [state, value] of Object.entries(f.tasks)) await expect(page.getByTestId(`tasks-${state}`)).toHaveText(String(value));
  expect(f.tasks.blocked, "the seed has blocked tasks").toBeGreaterThan(0);
  expect(f.tasks.unverified, "the seed has unverified completions").toBeGreaterThan(0);

  const inbox = page.getByRole("region", { name: "Approval inbox" });
  await expect(inbox.getByTestId("inbox-blocked")).toHaveText(String(f.inbox.blocked));
  if (f.inbox.resetRequested > 0) await expect(inbox.getByTestId("inbox-reset-requested")).toHaveText(String(f.inbox.resetRequested));
  await expect(inbox.getByRole("link", { name: "Open the approval inbox" })).toHaveAttribute("href", "/approvals");
});

test("the live sessions, completion checks and activity are the ledger's newest rows @mobile", async ({ page, ledger }, testInfo) => {
  await page.goto("/");

  const active = (ledger.prepare("SELECT id FROM sessions WHERE status = 'active' ORDER BY started_at DESC, id DESC").all() as { id: string }[]).map(
    (r) => r.id,
  );
  expect(active.length, "the seed has active sessions").toBeGreaterThan(0);
  await expect.poll(() => liveTable(page).getByRole("link").allTextContents()).toEqual(active.slice(0, 20));
  for (const id of active.slice(0, 5)) {
    const { tasks, criteria } = progressOf(ledger, id);
    const row = liveTable(page)
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name: id, exact: true }) });
    await expect(row.getByRole("progressbar", { name: `Tasks completed in ${id}` })).toHaveAttribute("aria-valuenow", String(tasks.done));
    await expect(row.getByRole("progressbar", { name: `Tasks completed in ${id}` })).toHaveAttribute("aria-valuemax", String(tasks.total));
    await expect(row.getByRole("progressbar", { name: `Required criteria met in ${id}` })).toHaveAttribute("aria-valuenow", String(criteria.met));
    await expect(row.getByRole("progressbar", { name: `Required criteria met in ${id}` })).toHaveAttribute("aria-valuemax", String(criteria.required));
  }
  const allActive = page.getByRole("region", { name: "Live sessions" }).getByRole("link", { name: /active sessions/i });
  await expect(allActive).toHaveAttribute("href", "/sessions?status=active");
  if (active.length > 20) await expect(allActive).toHaveText(`All ${active.length} active sessions`);

  const checks = ledger.prepare("SELECT id, session_id AS sessionId, accepted, reasons FROM completion_checks ORDER BY at DESC, id DESC LIMIT 10").all() as {
    id: number;
    sessionId: string;
    accepted: number;
    reasons: string;
  }[];
  expect(checks.length, "the seed has completion checks").toBeGreaterThan(0);
  const items = page
    .getByRole("region", { name: "Recent completion checks" })
    .getByRole("listitem")
    .filter({ has: page.getByRole("link") });
  await expect.poll(() => items.evaluateAll((li) => li.map((item) => Number(item.getAttribute("data-check-id"))))).toEqual(checks.map((c) => c.id));
  for (const [i, check] of checks.entries()) {
    await expect(items.nth(i)).toContainText(check.accepted ? "Accepted" : "Rejected");
    await expect(items.nth(i).getByRole("link", { name: check.sessionId, exact: true })).toBeVisible();
    for (const reason of JSON.parse(check.reasons) as string[]) await expect(items.nth(i)).toContainText(reason);
  }

  const newest = ledger.prepare("SELECT id, actor FROM events ORDER BY id DESC LIMIT 20").all() as { id: number; actor: string }[];
  const feed = page.getByRole("region", { name: "Activity" }).getByRole("listitem");
  await expect.poll(() => feed.evaluateAll((li) => li.map((item) => Number(item.getAttribute("data-event-id"))))).toEqual(newest.map((e) => e.id));
  await expect(feed.first()).toContainText(newest[0]!.actor);

  await screenshot(page, "overview", testInfo.project.name);
});

test("live: a local-mode CLI's new session and blocked task show up in the figures, the list and the feed without a reload", async ({ page, ledger }) => {
  test.setTimeout(90_000);
  const cli = async (...args: string[]) => {
    const run = await proofgate([...args, "--db", E2E_DB]);
    expect(run.code, `proofgate ${args.join(" ")}: ${run.stderr}`).toBe(0);
  };
  await page.goto("/");
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  const before = figures(ledger);
  await expect(page.getByTestId("total-active")).toHaveText(String(before.sessions.active));
  await expect(page.getByTestId("inbox-blocked")).toHaveText(String(before.inbox.blocked));
  const loads: string[] = [];
  page.on("framenavigated", (frame) => frame === page.mainFrame() && loads.push(frame.url()));

  const id = uniqueId("e2e-overview-live");
  await cli("create-session", id, "simple", "Appears on the overview live", "--agent-id", "orchestrator");
  await expect(page.getByTestId("total-active")).toHaveText(String(before.sessions.active + 1));
  await expect(liveTable(page).getByRole("link", { name: id, exact: true })).toBeVisible();
  await expect(page.getByRole("region", { name: "Activity" }).getByRole("listitem").first()).toContainText(`created session ${id}`);

  await cli("create-task-group", "t", id, "A task whose claim is refused", "--agent-id", "orchestrator");
  await cli("claim", id, "t", "--agent-id", "developer_1");
  await cli("block", id, "t", "--failures", '["tests fail"]', "--agent-id", "verifier_1");
  await expect(page.getByTestId("inbox-blocked")).toHaveText(String(before.inbox.blocked + 1));
  await expect(page.getByTestId("tasks-blocked")).toHaveText(String(before.tasks.blocked! + 1));
  await expect(
    liveTable(page)
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name: id, exact: true }) }),
  ).toContainText("1 blocked");
  expect(loads, "the page was not reloaded").toEqual([]);
});
