import type Database from "better-sqlite3";
import { E2E_DB } from "../playwright.config";
import { proofgate, uniqueId } from "./cli-helpers";
import { expect, screenshot, test } from "./fixtures";

/** A session's progress recomputed from its task and criteria rows (not from the rollups the page reads). */
function progressOf(ledger: Database.Database, id: string) {
  const tasks = ledger.prepare("SELECT count(*) AS total, coalesce(sum(status = 'completed'), 0) AS done FROM tasks WHERE session_id = ?").get(id) as { total: number; done: number };
  const criteria = ledger
    .prepare("SELECT coalesce(sum(required_for_completion), 0) AS required, coalesce(sum(required_for_completion AND coalesce(verifier_status, status) = 'met'), 0) AS met FROM success_criteria WHERE session_id = ?")
    .get(id) as { required: number; met: number };
  return { tasks, criteria };
}

test("the overview lists the live sessions with the ledger's progress, and the newest events", async ({ page, ledger }, testInfo) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();

  const active = (ledger.prepare("SELECT id FROM sessions WHERE status = 'active' ORDER BY started_at DESC, id DESC LIMIT 20").all() as { id: string }[]).map((r) => r.id);
  expect(active.length, "the seed has active sessions").toBeGreaterThan(0);
  const live = page.getByRole("table", { name: "Active sessions, newest first" });
  await expect.poll(() => live.getByRole("link").allTextContents()).toEqual(active);
  for (const id of active.slice(0, 5)) {
    const { tasks, criteria } = progressOf(ledger, id);
    const row = live.getByRole("row").filter({ has: page.getByRole("link", { name: id, exact: true }) });
    await expect(row.getByRole("progressbar", { name: `Tasks completed in ${id}` })).toHaveAttribute("aria-valuenow", String(tasks.done));
    await expect(row.getByRole("progressbar", { name: `Tasks completed in ${id}` })).toHaveAttribute("aria-valuemax", String(tasks.total));
    await expect(row.getByRole("progressbar", { name: `Required criteria met in ${id}` })).toHaveAttribute("aria-valuenow", String(criteria.met));
    await expect(row.getByRole("progressbar", { name: `Required criteria met in ${id}` })).toHaveAttribute("aria-valuemax", String(criteria.required));
  }

  const newest = ledger.prepare("SELECT id, actor FROM events ORDER BY id DESC LIMIT 20").all() as { id: number; actor: string }[];
  const feed = page.getByRole("region", { name: "Activity" }).getByRole("listitem");
  await expect.poll(() => feed.evaluateAll((items) => items.map((item) => Number(item.getAttribute("data-event-id"))))).toEqual(newest.map((e) => e.id));
  await expect(feed.first()).toContainText(newest[0]!.actor);

  await screenshot(page, "overview", testInfo.project.name);
});

test("live: a session created by a local-mode CLI appears among the live sessions and in the activity, without a reload", async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto("/");
  await expect(page.getByTestId("live-indicator")).toHaveAttribute("data-status", "live");
  const loads: string[] = [];
  page.on("framenavigated", (frame) => frame === page.mainFrame() && loads.push(frame.url()));

  const id = uniqueId("e2e-overview-live");
  const run = await proofgate(["create-session", id, "simple", "Appears on the overview live", "--db", E2E_DB, "--agent-id", "orchestrator"]);
  expect(run.code, run.stderr).toBe(0);
  const live = page.getByRole("table", { name: "Active sessions, newest first" });
  await expect(live.getByRole("link", { name: id, exact: true })).toBeVisible({ timeout: 5_000 });
  await expect(page.getByRole("region", { name: "Activity" }).getByRole("listitem").first()).toContainText(id);
  expect(loads, "the page was not reloaded").toEqual([]);
});
